package dev.herald.core.transcript;

import java.time.Instant;
import java.util.Objects;

/**
 * One transcript: a session id, its lane, its parent (for compression children) and its end.
 *
 * @param id              the session id
 * @param sessionKey      the lane's key (text form), or null for sessions outside any lane
 * @param parentSessionId the session this one continues after compression, or null
 * @param startedAt       when it started
 * @param endedAt         when it ended, or null while live
 * @param endReason       why it ended, or null while live
 */
public record TranscriptSession(
        String id, String sessionKey, String parentSessionId, Instant startedAt, Instant endedAt, EndReason endReason) {
    public TranscriptSession {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(startedAt, "startedAt");
    }

    public boolean ended() {
        return endedAt != null;
    }
}
