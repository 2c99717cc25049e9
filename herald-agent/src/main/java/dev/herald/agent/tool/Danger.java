package dev.herald.agent.tool;

import java.util.Objects;

/**
 * A tool's verdict on one call: safe to run, or dangerous with the reason shown to the person asked.
 *
 * @param dangerous true when the call needs an approval
 * @param reason    why, such as "runs a shell command"; empty when safe
 */
public record Danger(boolean dangerous, String reason) {
    public static final Danger NONE = new Danger(false, "");

    public Danger {
        Objects.requireNonNull(reason, "reason");
    }

    public static Danger because(String reason) {
        return new Danger(true, reason);
    }

    /** Safe inside the conversation's workspace; outside it the call {@code verb}s ("reads", "writes") where secrets may be. */
    public static Danger outsideWorkspace(ToolContext context, java.nio.file.Path path, String verb) {
        return context.insideWorkspace(path) ? NONE
                : because(verb + " outside the workspace" + ("writes".equals(verb) ? "" : " (it may hold secrets such as config files)"));
    }
}
