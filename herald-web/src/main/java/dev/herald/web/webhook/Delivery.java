package dev.herald.web.webhook;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.Platform;
import java.util.Objects;

/** Where a webhook turn's reply goes: the log, or a chat on another platform. */
public sealed interface Delivery {

    /** A log line with the first {@value WebhookPlatform#LOG_PREVIEW} characters of the reply. */
    record Log() implements Delivery {
        @Override
        public String toString() {
            return "log";
        }
    }

    /** A chat (and optionally a thread) on another running platform. */
    record Forward(Platform platform, ChatTarget target) implements Delivery {
        public Forward {
            Objects.requireNonNull(platform, "platform");
            Objects.requireNonNull(target, "target");
        }

        @Override
        public String toString() {
            return platform + ":" + target.chatId() + (target.hasThread() ? ":" + target.threadId() : "");
        }
    }

    /**
     * Parses {@code log} or {@code <platform>:<chat_id>[:<thread_id>]} (for example {@code telegram:123456}
     * or {@code slack:C0123:1712000000.000100}); a chat id cannot contain ':'.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static Delivery parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty() || t.equals("log")) {
            return new Log();
        }
        String[] parts = t.split(":", 3);
        if (parts.length < 2 || parts[1].isBlank()) {
            throw new IllegalArgumentException("deliver must be 'log' or '<platform>:<chat_id>[:<thread_id>]', was '" + t + "'");
        }
        return new Forward(Platform.of(parts[0]), new ChatTarget(parts[1], parts.length == 3 ? parts[2] : null));
    }
}
