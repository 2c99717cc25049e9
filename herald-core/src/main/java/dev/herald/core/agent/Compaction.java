package dev.herald.core.agent;

import java.util.List;
import java.util.Objects;

/**
 * A history summarized to fit the model's context: the conversation continues in a child session that
 * starts with {@code summary} followed by {@code kept} (the recent messages kept verbatim, including
 * tool results still pending and the user's current goal).
 *
 * @param tokensBefore the estimated tokens of the history before, or 0 when not known
 * @param tokensAfter  the estimated tokens of the summary and the kept messages, or 0 when not known
 */
public record Compaction(String summary, List<ChatMessage> kept, int summarizedMessages, long tokensBefore, long tokensAfter) {
    public Compaction {
        Objects.requireNonNull(summary, "summary");
        kept = List.copyOf(kept);
    }

    /** A compaction whose sizes in tokens are not known. */
    public Compaction(String summary, List<ChatMessage> kept, int summarizedMessages) {
        this(summary, kept, summarizedMessages, 0, 0);
    }
}
