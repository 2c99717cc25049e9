package dev.herald.core.lanes;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import java.time.Instant;

/**
 * A turn that is running now: what the gateway needs to interrupt it, tell its chat about a stop,
 * and show it in /status.
 */
public record ActiveTurn(long turnId, SessionKey key, SessionSource source, String eventId, Interrupt interrupt, Instant startedAt) {
}
