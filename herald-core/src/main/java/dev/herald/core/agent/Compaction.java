package dev.herald.core.agent;

import java.util.List;
import java.util.Objects;

/**
 * A history summarized to fit the model's context: the conversation continues in a child session that
 * starts with {@code summary} followed by {@code kept} (the recent messages kept verbatim, including
 * tool results still pending and the user's current goal).
 */
public record Compaction(String summary, List<ChatMessage> kept, int summarizedMessages) {
    public Compaction {
        Objects.requireNonNull(summary, "summary");
        kept = List.copyOf(kept);
    }
}
