package dev.herald.core.session;

import java.util.Objects;

/** What {@link SessionStore#purge} did with a lane: removed it for good, found no such lane, or refused and why. */
public sealed interface PurgeResult {

    /** The lane and everything it held are gone: its transcripts and their rows, its turns and its model choice. */
    record Purged(int transcripts, long messages, long turns) implements PurgeResult {
    }

    /** No lane has this key (never stored, or purged before). */
    record NoSuchSession() implements PurgeResult {
    }

    /** Nothing was removed: {@code reason} says why, in the operator's words, with the next step. */
    record Refused(String reason) implements PurgeResult {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
