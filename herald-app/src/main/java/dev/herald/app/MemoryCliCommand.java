package dev.herald.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import dev.herald.core.session.Storage;
import dev.herald.core.session.StoreException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code herald memory}: one user's long-term memory in the home's store, for the operator: {@code export USER} writes
 * it as JSON to standard output, {@code purge USER} deletes it. USER is the owner key {@code <platform>:<user id>}
 * ({@code telegram:12345}, {@code webchat:u:ann} for the web account ann), as {@code /whoami} shows platform and id. Works
 * while Herald runs; the running gateway reads the change at the user's next turn. A chat user linked to a web account
 * ({@code /link}) has the account's memory, so naming either names the same facts.
 */
@Command(name = "memory", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "A user's long-term memory: export it as JSON, or purge it.")
final class MemoryCliCommand implements Callable<Integer> {
    private static final String USER_HELP = "the user as <platform>:<user id>, e.g. telegram:12345 or webchat:u:ann";

    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    MemoryCliCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald memory: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }

    /** The owner key as given, or null (after a message) when it cannot be one. */
    static String owner(CliEnvironment cli, String command, String user) {
        String u = user == null ? "" : user.strip();
        if (u.isEmpty() || u.length() > Memories.MAX_OWNER || u.indexOf(':') <= 0 || u.endsWith(":")) {
            cli.err().println("herald memory " + command + ": '" + (u.length() > 60 ? u.substring(0, 60) + "..." : u)
                    + "' is no user; give " + USER_HELP);
            return null;
        }
        return u;
    }

    /** {@code herald memory export USER}. */
    @Command(name = "export", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Write a user's remembered facts as JSON to standard output.")
    static final class Export implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "USER", description = USER_HELP)
        String user;

        Export(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            String owner = owner(cli, "export", user);
            if (owner == null) {
                return ExitCodes.USAGE;
            }
            List<Memory> all;
            try (Storage storage = UsersCommand.open(cli, where)) {
                all = linked(storage).list(owner, true, Integer.MAX_VALUE);
            } catch (StoreException e) {
                cli.err().println("herald memory export: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode out = json.createObjectNode().put("user", owner);
            ArrayNode list = out.putArray("memories");
            for (Memory m : all) {
                list.addObject().put("number", m.id()).put("text", m.text()).put("created_at", m.createdAt().toString())
                        .put("status", m.status().wire()).put("source", m.source());
            }
            try {
                cli.out().println(json.writeValueAsString(out));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
            return ExitCodes.OK;
        }
    }

    /** {@code herald memory purge USER}. */
    @Command(name = "purge", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Delete every remembered fact of a user.")
    static final class Purge implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "USER", description = USER_HELP)
        String user;

        Purge(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            String owner = owner(cli, "purge", user);
            if (owner == null) {
                return ExitCodes.USAGE;
            }
            int n;
            try (Storage storage = UsersCommand.open(cli, where)) {
                n = linked(storage).purge(owner);
            } catch (StoreException e) {
                cli.err().println("herald memory purge: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            cli.out().println("purged: " + n + (n == 1 ? " fact" : " facts") + " of " + owner);
            return ExitCodes.OK;
        }
    }

    /** The memories as the gateway reads them: a chat user linked to a web account (/link) has the account's. */
    private static dev.herald.core.memory.Memories linked(Storage storage) {
        return new dev.herald.core.account.Identities(storage.identityLinks(), java.time.Clock.systemUTC()).memories(storage.memories());
    }
}
