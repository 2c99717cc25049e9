package dev.herald.core.auth;

import dev.herald.core.platform.CommandNames;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may run which chat command. A platform's {@code admins} may run every command; its other allowed users may run the
 * commands named in {@link #users} (config {@code commands.users}), plus {@code /help} and {@code /whoami}, which only
 * tell a user what they may do. Names are the commands' own (one per command); an alias ({@code /reset},
 * {@code /q}) follows its command. The default lets users run every conversation command and keeps {@code /restart},
 * {@code /sethome} and {@code /reload-mcp} for admins.
 *
 * @param users the commands, without the slash, that users who are not admins may run
 */
public record CommandTiers(Set<String> users) {
    /** Other names of a command, to the command's own name. */
    public static final Map<String, String> ALIASES = Map.of("reset", "new", "q", "queue", "models", "model", "set-home", "sethome",
            "commands", "help", "start", "help");
    /** The commands only admins may run unless the configuration says otherwise. */
    public static final Set<String> ADMIN_BY_DEFAULT = Set.of("restart", "sethome",
            "reload-mcp");
    /** Commands every allowed user may run whatever the configuration says (they only describe the user's own rights). */
    public static final Set<String> ALWAYS = Set.of("help", "whoami");
    /** Every command's own name (the gateway's and those its capabilities add), sorted. */
    public static final List<String> KNOWN = CommandNames.ALL.stream().map(CommandTiers::canonical).distinct().sorted().toList();

    public CommandTiers {
        users = users == null ? Set.of() : Set.copyOf(users.stream().map(CommandTiers::canonical).toList());
    }

    /** Users may run every command but {@link #ADMIN_BY_DEFAULT}. */
    public static CommandTiers defaults() {
        return new CommandTiers(KNOWN.stream().filter(n -> !ADMIN_BY_DEFAULT.contains(n)).collect(java.util.stream.Collectors.toSet()));
    }

    /** {@code name}'s command: itself, or the command it is an alias of (lower-case, without the slash). */
    public static String canonical(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.startsWith("/")) {
            n = n.substring(1);
        }
        return ALIASES.getOrDefault(n, n);
    }

    /** Whether a user (an admin when {@code admin}) may run the command {@code name} (an alias is its command). */
    public boolean allows(String name, boolean admin) {
        String n = canonical(name);
        return admin || ALWAYS.contains(n) || users.contains(n);
    }

    /** Of {@code commands}, those only admins may run here, sorted. */
    public Set<String> adminOnly(Collection<String> commands) {
        Set<String> out = new TreeSet<>();
        commands.stream().map(CommandTiers::canonical).filter(n -> !allows(n, false)).forEach(out::add);
        return out;
    }

    /** What a user who may not run {@code name} reads. */
    public static String refusal(String name) {
        return "\u26d4 /" + name + " is for admins here; ask an admin of this Herald to run it for you.";
    }
}
