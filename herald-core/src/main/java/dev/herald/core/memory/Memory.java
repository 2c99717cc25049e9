package dev.herald.core.memory;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * One fact remembered about one user, across their sessions and chats.
 *
 * @param id        the store's id, unique in the store (not per user)
 * @param owner     whose it is ({@link Memories#ownerOf}: {@code <platform>:<user id>})
 * @param text      the fact, at most {@link Memories#MAX_TEXT} characters, one line
 * @param createdAt when it was remembered
 * @param source    the session key of the chat it was remembered in, or null
 * @param status    active (in the prompt and recalled) or pending (waits for the user's {@code /memory approve})
 */
public record Memory(long id, String owner, String text, Instant createdAt, String source, Status status) {
    public Memory {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(status, "status");
    }

    /** Whether the model sees it: active, or pending the user's approval ({@code agent.memory.approve_new}). */
    public enum Status {
        ACTIVE, PENDING;

        /** The word stored in the {@code status} column. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The status stored as {@code word}. */
        public static Status of(String word) {
            return valueOf(word.toUpperCase(Locale.ROOT));
        }
    }

    public boolean pending() {
        return status == Status.PENDING;
    }
}
