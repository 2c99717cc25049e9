package dev.herald.core.inbound;

import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Platform;
import java.time.Instant;
import java.util.Map;

/**
 * A snapshot of the running gateway, for /status, {@code herald status} and the admin page.
 *
 * @param state          starting, running, draining or stopped
 * @param startedAt      when this process started the gateway
 * @param activeTurns    turns running now
 * @param claimedLanes   sessions whose lane is taken (running or about to run)
 * @param waitingTurns   turns queued behind running ones
 * @param restoring      start-up restore in progress (inbound waits behind resume turns)
 * @param autoResume     whether automatic resume is on for this boot (the crash-loop breaker turns it off)
 * @param platforms      each platform's connection state and detail
 * @param agent          a short description of the agent (model name)
 * @param store          whether the store can write now (and why not), with a warning such as low disk space
 */
public record GatewayStatus(
        GatewayState state,
        Instant startedAt,
        int activeTurns,
        int claimedLanes,
        int waitingTurns,
        boolean restoring,
        boolean autoResume,
        Map<Platform, PlatformRegistry.Connection> platforms,
        String agent,
        dev.herald.core.session.StoreHealth store) {

    /** Whether the gateway can take messages: it runs and its store can write. */
    public boolean ready() {
        return state == GatewayState.RUNNING && store.writable();
    }
}
