package dev.herald.core.session;

import java.time.Instant;
import java.util.Objects;

/**
 * One conversation of a lane, as {@code /sessions} lists it: a transcript the lane had (the current one, or one left by
 * {@code /new}, a suspension or {@code /resume}), followed through compression to its newest part.
 *
 * @param sessionId    the transcript's id (the compression tip)
 * @param title        the title it was given ({@code /title}, {@code /new <name>}, a web chat rename), or null; for the
 *                     current conversation the lane's title
 * @param firstMessage the text of its first user message, or null when it has none
 * @param startedAt    when the transcript started
 * @param lastAt       when its newest row was written, or null when it has none (or only rows without a time)
 * @param messages     how many user and assistant messages with text it holds
 * @param current      whether it is the lane's current conversation
 */
public record Conversation(String sessionId, String title, String firstMessage, Instant startedAt, Instant lastAt, long messages,
        boolean current) {
    public Conversation {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(startedAt, "startedAt");
    }

    /** When it was last used: its newest row, else its start. */
    public Instant activeAt() {
        return lastAt != null ? lastAt : startedAt;
    }
}
