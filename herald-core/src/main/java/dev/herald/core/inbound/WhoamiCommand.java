package dev.herald.core.inbound;

import dev.herald.core.auth.CommandTiers;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code /whoami}: who Herald takes the sender for, as an admin would write them into an allowlist (platform, user id,
 * chat id and thread), their tier (admin or user, from the authorizer's rules) and the commands that tier may run
 * ({@link CommandTiers}, the same policy the gateway applies and /help shows). It
 * tells nothing the sender does not already know about themselves, so every authorized user may run it.
 */
final class WhoamiCommand {
    /** The gateway's own commands (one name each, aliases left out). */
    static final List<String> BUILT_IN = List.of("new", "title", "sessions", "resume", "retry", "undo", "usage", "stop", "status", "queue",
            "approve", "deny", "compress", "model", "whoami", "restart", "sethome", "help");

    private WhoamiCommand() {
    }

    /** The answer for {@code event}'s sender; {@code extensions} are the names of the commands added to the gateway. */
    static String answer(MessageEvent event, boolean admin, Collection<String> extensions, CommandTiers tiers) {
        SessionSource s = event.source();
        StringBuilder sb = new StringBuilder();
        sb.append("Platform: ").append(s.platform()).append('\n');
        sb.append("User id: ").append(s.userId() == null ? "(none given by the platform)" : s.userId());
        if (s.userName() != null) {
            sb.append(" (").append(s.userName()).append(')');
        }
        sb.append('\n');
        sb.append("Chat id: ").append(s.chatId()).append(" (").append(s.chatType().wire()).append(')');
        if (s.threadId() != null) {
            sb.append(", thread ").append(s.threadId());
        }
        sb.append('\n');
        sb.append("Tier: ").append(admin ? "admin (may run every command)" : "user").append('\n');
        TreeSet<String> all = new TreeSet<>(BUILT_IN);
        all.addAll(extensions);
        List<String> allowed = all.stream().filter(n -> tiers.allows(n, admin)).map(n -> "/" + n).toList();
        sb.append("You may run: ").append(String.join(" ", allowed));
        Set<String> adminOnly = tiers.adminOnly(all);
        if (!admin && !adminOnly.isEmpty()) {
            sb.append("\nAdmins only: ").append(String.join(" ", adminOnly.stream().map(n -> "/" + n).toList()));
        }
        return sb.toString();
    }
}
