package dev.herald.core.platform;

import java.util.Set;

/**
 * Every chat command name Herald answers, aliases included: the gateway's own and those added by its capabilities
 * ({@code /schedule}, {@code /voice}, {@code /skills}, {@code /personality}, {@code /context}, {@code /reasoning},
 * {@code /reload-mcp}, {@code /memory}, {@code /link}; a skill's own {@code /name} is not among them). A platform whose client keeps {@code /} for itself (Slack, Mattermost) reads
 * {@code !name} as the command {@code /name} when the name is one of these, and as plain text otherwise. Kept whole by
 * a test against the gateway's command table.
 */
public final class CommandNames {
    /** The names, without the slash, lower-case. */
    public static final Set<String> ALL = Set.of("new", "reset", "title", "sessions", "resume", "retry", "undo", "usage", "whoami",
            "stop", "status", "queue", "q", "restart", "approve", "deny", "compress", "model", "models", "sethome", "set-home", "help",
            "commands", "start", "schedule", "voice", "skills", "personality",
            "context", "reasoning", "reload-mcp", "memory", "link",
            "steer", "btw", "bg", "busy");

    private CommandNames() {
    }
}
