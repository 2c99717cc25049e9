package dev.herald.core.auth;

import dev.herald.core.config.ClosestKey;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import java.util.List;

/**
 * {@code commands:} which chat commands users who are not admins may run. A platform's {@code admins} run every
 * command; /help and /whoami are open to every allowed user and show each one what they may run.
 */
public record CommandsConfig(
        @Doc("commands (without the slash) that allowed users who are not admins may run; the rest are for the platform's admins. "
                + "Default: every command but restart and sethome")
        List<String> users) implements Validated {

    public CommandsConfig {
        users = users == null ? defaults().users() : List.copyOf(users);
    }

    public static CommandsConfig defaults() {
        return new CommandsConfig(CommandTiers.defaults().users().stream().sorted().toList());
    }

    /** The policy the gateway applies. */
    public CommandTiers tiers() {
        return new CommandTiers(new java.util.HashSet<>(users));
    }

    @Override
    public void validate(ConfigChecks check) {
        for (int i = 0; i < users.size(); i++) {
            String name = users.get(i) == null ? "" : users.get(i).strip();
            boolean known = !name.isEmpty() && CommandTiers.KNOWN.contains(CommandTiers.canonical(name));
            String hint = ClosestKey.to(name.startsWith("/") ? name.substring(1) : name, CommandTiers.KNOWN)
                    .map(k -> "; did you mean " + k + "?").orElse("; known: " + String.join(", ", CommandTiers.KNOWN));
            check.require(known, "users[" + i + "]", "is not a command: \"" + name + "\"" + hint);
        }
    }
}
