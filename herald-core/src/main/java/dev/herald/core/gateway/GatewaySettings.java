package dev.herald.core.gateway;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.lanes.BusyPolicy;
import dev.herald.core.session.SessionKey;
import java.time.Duration;
import java.util.Objects;

/**
 * The gateway's tunables, validated by the configuration layer and frozen here.
 *
 * @param freshness              how long an interruption stays worth resuming (spec C, G4)
 * @param drainTimeout           how long a stop waits for running turns before interrupting them
 * @param startupRestoreTimeout  how long inbound messages wait behind start-up resume turns (spec F7);
 *                               zero does not hold them at all (the lanes still keep each session's order)
 * @param busyPolicy             queue or interrupt when a session is busy
 * @param stuckLoopThreshold     consecutive interrupting stops after which a session is suspended (spec E4)
 * @param keyPolicy              how sources map to session keys
 * @param interruptGrace         how long interrupted turns get to end before they are recorded as cut off
 * @param approvalTimeout        how long a dangerous tool call waits for /approve before it is denied
 * @param allowDangerousWithoutUser whether dangerous tools run on non-interactive platforms (default: denied)
 * @param redeliveryInterval     how often replies whose delivery failed are tried again on connected platforms
 *                               (the first retry; later ones back off, doubling up to 30 minutes)
 * @param watchdogInterval       how often the watchdog looks for running turns that no live lane runs
 * @param orphanGrace            how old such a turn must be before the watchdog ends it
 * @param noticeTimeout          how long a stop lets its notices to chats and home channels take, counted from the
 *                               start of the stop (they are sent while the drain runs and never delay its marks)
 */
public record GatewaySettings(
        Freshness freshness,
        Duration drainTimeout,
        Duration startupRestoreTimeout,
        BusyPolicy busyPolicy,
        int stuckLoopThreshold,
        SessionKey.KeyPolicy keyPolicy,
        Duration interruptGrace,
        Duration approvalTimeout,
        boolean allowDangerousWithoutUser,
        Duration redeliveryInterval,
        Duration watchdogInterval,
        Duration orphanGrace,
        Duration noticeTimeout) {

    public GatewaySettings {
        Objects.requireNonNull(freshness, "freshness");
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        Objects.requireNonNull(startupRestoreTimeout, "startupRestoreTimeout");
        Objects.requireNonNull(busyPolicy, "busyPolicy");
        Objects.requireNonNull(keyPolicy, "keyPolicy");
        Objects.requireNonNull(interruptGrace, "interruptGrace");
        Objects.requireNonNull(approvalTimeout, "approvalTimeout");
        Objects.requireNonNull(redeliveryInterval, "redeliveryInterval");
        Objects.requireNonNull(watchdogInterval, "watchdogInterval");
        Objects.requireNonNull(orphanGrace, "orphanGrace");
        Objects.requireNonNull(noticeTimeout, "noticeTimeout");
        if (watchdogInterval.isNegative() || watchdogInterval.isZero() || orphanGrace.isNegative()) {
            throw new IllegalArgumentException("watchdogInterval must be positive and orphanGrace not negative");
        }
        if (redeliveryInterval.isNegative() || redeliveryInterval.isZero()) {
            throw new IllegalArgumentException("redeliveryInterval must be positive");
        }
        if (drainTimeout.isNegative()) {
            throw new IllegalArgumentException("drainTimeout must not be negative");
        }
        if (stuckLoopThreshold < 1) {
            throw new IllegalArgumentException("stuckLoopThreshold must be at least 1, was " + stuckLoopThreshold);
        }
    }

    public static GatewaySettings defaults() {
        return new GatewaySettings(Freshness.defaults(), Duration.ofSeconds(60), Duration.ofSeconds(30),
                BusyPolicy.QUEUE, 3, SessionKey.KeyPolicy.defaults(), Duration.ofSeconds(5), Duration.ofMinutes(5), false,
                Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(10));
    }

    public GatewaySettings withFreshness(Freshness w) {
        return new GatewaySettings(w, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy, interruptGrace,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withDrainTimeout(Duration d) {
        return new GatewaySettings(freshness, d, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy, interruptGrace,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withStartupRestoreTimeout(Duration d) {
        return new GatewaySettings(freshness, drainTimeout, d, busyPolicy, stuckLoopThreshold, keyPolicy, interruptGrace,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withBusyPolicy(BusyPolicy p) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, p, stuckLoopThreshold, keyPolicy, interruptGrace,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withApprovals(Duration timeout, boolean allowWithoutUser) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy,
                interruptGrace, timeout, allowWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withStuckLoopThreshold(int n) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, n, keyPolicy, interruptGrace,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withInterruptGrace(Duration d) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy, d,
                approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withRedeliveryInterval(Duration d) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy,
                interruptGrace, approvalTimeout, allowDangerousWithoutUser, d, watchdogInterval, orphanGrace, noticeTimeout);
    }

    public GatewaySettings withNoticeTimeout(Duration d) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy,
                interruptGrace, approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, watchdogInterval, orphanGrace, d);
    }

    /** How often the watchdog sweeps, and how old a running turn without a live lane must be before it is ended. */
    public GatewaySettings withWatchdog(Duration interval, Duration grace) {
        return new GatewaySettings(freshness, drainTimeout, startupRestoreTimeout, busyPolicy, stuckLoopThreshold, keyPolicy,
                interruptGrace, approvalTimeout, allowDangerousWithoutUser, redeliveryInterval, interval, grace, noticeTimeout);
    }
}
