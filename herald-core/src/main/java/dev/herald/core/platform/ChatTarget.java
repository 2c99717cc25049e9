package dev.herald.core.platform;

import java.util.Objects;

/** Where a message goes on one platform: a chat and, optionally, a thread or topic inside it. */
public record ChatTarget(String chatId, String threadId) {
    public ChatTarget {
        Objects.requireNonNull(chatId, "chatId");
        if (chatId.isBlank()) {
            throw new IllegalArgumentException("chatId must not be blank");
        }
        if (threadId != null && threadId.isBlank()) {
            threadId = null;
        }
    }

    public static ChatTarget of(String chatId) {
        return new ChatTarget(chatId, null);
    }

    public boolean hasThread() {
        return threadId != null;
    }
}
