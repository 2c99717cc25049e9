package dev.herald.core.turn;

import dev.herald.core.session.SessionKey;
import java.time.Instant;

/**
 * A turn RUNNING in the store, with what the continuity rules need to judge its interruption: when it
 * started, and the time of its session's newest transcript row that is not bookkeeping.
 *
 * @param id          the turn
 * @param key         its lane
 * @param sessionId   its transcript session (null when it never got one)
 * @param startedAt   when it started (else when it was last updated)
 * @param hasActivity whether its transcript has a row that is not bookkeeping
 * @param lastActivity that row's time; null when the row has none (older transcripts: unknown)
 */
public record RunningTurn(long id, SessionKey key, String sessionId, Instant startedAt, boolean hasActivity, Instant lastActivity) {
}
