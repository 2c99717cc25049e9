package dev.herald.core.platform;

import java.util.Objects;

/**
 * Replies to chat {@code chatId} of platform {@code from} go to {@code to}, a chat on another platform: a platform that
 * only relays (a webhook route delivering to Telegram) declares this as data when it is wired. The outbox sends such
 * replies straight to the destination, split to its limit and tracked part by part; notices and command answers still
 * go to {@code from}.
 */
public record Relay(Platform from, String chatId, Destination to) {
    public Relay {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(chatId, "chatId");
        Objects.requireNonNull(to, "to");
    }
}
