package dev.herald.app;

import dev.herald.app.runtime.Stores;
import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.core.session.Storage;
import dev.herald.core.session.StoreException;
import dev.herald.web.access.PasswordHash;
import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code herald users}: the web accounts in the home's store ({@code add}, {@code list}, {@code disable}), also while
 * Herald runs (the running gateway sees a change at its next request). A password is asked on the console (twice,
 * not echoed) or read from standard input with {@code --password-stdin}; it is never an argument (arguments show in
 * {@code ps} and shell history).
 */
@Command(name = "users", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Manage the web accounts: add, list, disable.")
final class UsersCommand implements Callable<Integer> {
    /** Where {@code --password-stdin} reads; tests replace it. */
    static volatile Supplier<InputStream> stdin = () -> System.in;

    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    UsersCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald users: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }

    static Storage open(CliEnvironment cli, HomeOptions where) {
        StoreAccess access = StoreAccess.of(cli, where);
        return Stores.open(access.store(), Clock.systemUTC());
    }

    /** {@code herald users add NAME --role user|admin [--password-stdin]}. */
    @Command(name = "add", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Add a web account. The password is asked on the console, or read from stdin with --password-stdin.")
    static final class Add implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "NAME", description = "1-32 lower-case letters, digits, '_' or '-'")
        String name;

        @Option(names = "--role", paramLabel = "ROLE", defaultValue = "user", description = "user (default) or admin")
        String role;

        @Option(names = "--password-stdin", description = "read the password from the first line of standard input")
        boolean passwordStdin;

        Add(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            Account account;
            try {
                String n = Account.checkName(name.strip().toLowerCase(Locale.ROOT));
                Role r = Role.of(role);
                String password = passwordStdin ? fromStdin() : fromConsole(cli);
                if (password == null) {
                    return ExitCodes.FAILURE;
                }
                account = new Account(n, r, PasswordHash.hash(password), false, java.time.Instant.now(), 0);
            } catch (IllegalArgumentException e) {
                cli.err().println("herald users add: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            try (Storage storage = open(cli, where)) {
                if (!storage.accounts().create(account)) {
                    cli.err().println("herald users add: an account named '" + account.name() + "' exists already "
                            + "(herald users list shows them)");
                    return ExitCodes.FAILURE;
                }
                if (account.admin()) {
                    try {
                        dev.herald.web.chat.UnownedConversations.giveToFirstAdmin(storage);
                    } catch (StoreException e) {
                        cli.err().println("herald users add: the account is made, but the web chat conversations from before "
                                + "accounts could not be given to the first admin now (Herald does it at its next start): " + e.getMessage());
                    }
                }
            } catch (StoreException e) {
                cli.err().println("herald users add: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            cli.out().println("added: " + account.name() + " (" + account.role().wire() + "); they can sign in to the web chat now");
            return ExitCodes.OK;
        }

        private static String fromStdin() {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(stdin.get(), StandardCharsets.UTF_8));
                String line = in.readLine();
                if (line == null) {
                    throw new IllegalArgumentException("--password-stdin: standard input was empty");
                }
                return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            } catch (IOException e) {
                throw new IllegalArgumentException("--password-stdin: cannot read standard input (" + e.getMessage() + ")");
            }
        }

        private static String fromConsole(CliEnvironment cli) {
            Console console = System.console();
            if (console == null) {
                throw new IllegalArgumentException("no console to ask the password on; pipe it in with --password-stdin");
            }
            char[] first = console.readPassword("Password for the new account: ");
            char[] again = console.readPassword("Same password again: ");
            try {
                if (first == null || again == null || !Arrays.equals(first, again)) {
                    cli.err().println("herald users add: the two passwords differ; nothing was added");
                    return null;
                }
                return new String(first);
            } finally {
                if (first != null) {
                    Arrays.fill(first, '\0');
                }
                if (again != null) {
                    Arrays.fill(again, '\0');
                }
            }
        }
    }

    /** {@code herald users list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "List the web accounts: name, role, disabled or not.")
    static final class ListUsers implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        ListUsers(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            List<Account> accounts;
            try (Storage storage = open(cli, where)) {
                accounts = storage.accounts().list();
            } catch (StoreException e) {
                cli.err().println("herald users list: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            if (accounts.isEmpty()) {
                cli.out().println("no web accounts yet (herald users add NAME --role admin makes the first admin)");
                return ExitCodes.OK;
            }
            for (Account a : accounts) {
                cli.out().println(a.name() + "  " + a.role().wire() + (a.disabled() ? "  DISABLED" : "") + (a.invited() ? "  INVITED (no password yet)" : "") + "  since " + a.createdAt());
            }
            return ExitCodes.OK;
        }
    }

    /** {@code herald users disable NAME}. */
    @Command(name = "disable", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "Disable a web account: it cannot sign in, and every session of it ends now.")
    static final class Disable implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        Disable(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            String n = name.strip().toLowerCase(Locale.ROOT);
            try (Storage storage = open(cli, where)) {
                if (!storage.accounts().setDisabled(n, true)) {
                    cli.err().println("herald users disable: no account is named '" + n + "' (herald users list shows them)");
                    return ExitCodes.FAILURE;
                }
            } catch (StoreException e) {
                cli.err().println("herald users disable: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            cli.out().println("disabled: " + n + "; every session of it has ended");
            return ExitCodes.OK;
        }
    }
}
