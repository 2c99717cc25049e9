package dev.herald.core.gateway;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Validated;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.lanes.BusyPolicy;
import java.time.Duration;

/**
 * {@code gateway:} the runner's lifecycle settings: how long interrupted work stays worth resuming, how long
 * a stop and a start-up wait for turns, and what happens to a message that arrives while its session is busy.
 * Seconds may be fractional (the environment overrides accept {@code 0.05}). The configuration loader binds the
 * section straight into this record; {@link #settings()} is the gateway's {@link GatewaySettings} with these keys
 * applied, and {@link #defaults()} reads {@link GatewaySettings#defaults()}: one default per setting.
 */
public record GatewayConfig(
        @Doc("seconds an interrupted turn stays worth resuming; 0 or less disables the freshness gate (all fresh)")
        @EnvOverride({"HERALD_AUTO_CONTINUE_FRESHNESS", "HERMES_AUTO_CONTINUE_FRESHNESS"})
        double autoContinueFreshnessSeconds,
        @Doc("seconds a stop waits for running turns before marking them resume-pending and interrupting them")
        double drainTimeoutSeconds,
        @Doc("seconds start-up holds inbound messages while resumed turns run; 0 = do not wait")
        @EnvOverride({"HERALD_STARTUP_RESTORE_DRAIN_TIMEOUT", "HERMES_STARTUP_RESTORE_DRAIN_TIMEOUT"})
        double startupRestoreDrainTimeoutSeconds,
        @Doc("what a message for a busy session does: wait behind the running turn, interrupt it and run now, or steer it (a chat's /busy wins)")
        BusyPolicy busyInput,
        @Doc("consecutive restarts that interrupted one session before it is suspended (starts fresh)")
        int stuckLoopThreshold,
        @Doc("seconds before a reply that failed to send is tried again (later tries back off, up to 30 minutes)")
        double redeliveryIntervalSeconds,
        @Doc("how herald restart, SIGUSR1 and /restart restart: handover starts the new process first and lets the old one "
                + "finish its turns (needs herald run's supervisor); drain stops the old one first")
        RestartMode restartMode) implements Validated {

    public GatewayConfig {
        restartMode = restartMode == null ? RestartMode.HANDOVER : restartMode;
    }

    /** The gateway's own defaults ({@link GatewaySettings#defaults()}), in this section's units: one default per setting. */
    public static GatewayConfig defaults() {
        GatewaySettings d = GatewaySettings.defaults();
        return new GatewayConfig(seconds(d.freshness().length()), seconds(d.drainTimeout()), seconds(d.startupRestoreTimeout()),
                d.busyPolicy(), d.stuckLoopThreshold(),
                seconds(d.redeliveryInterval()), RestartMode.HANDOVER);
    }

    /** The gateway's settings with this section's keys applied; the rest keep {@link GatewaySettings#defaults()}. */
    public GatewaySettings settings() {
        return GatewaySettings.defaults()
                .withFreshness(new Freshness(autoContinueFreshness()))
                .withDrainTimeout(drainTimeout())
                .withStartupRestoreTimeout(startupRestoreDrainTimeout())
                .withBusyPolicy(busyInput)
                .withStuckLoopThreshold(stuckLoopThreshold)
                .withRedeliveryInterval(redeliveryInterval());
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    public Duration redeliveryInterval() {
        return seconds(redeliveryIntervalSeconds);
    }

    /** The freshness window; zero or negative means the gate is disabled. */
    public Duration autoContinueFreshness() {
        return seconds(autoContinueFreshnessSeconds);
    }

    public Duration drainTimeout() {
        return seconds(drainTimeoutSeconds);
    }

    public Duration startupRestoreDrainTimeout() {
        return seconds(startupRestoreDrainTimeoutSeconds);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(Double.isFinite(autoContinueFreshnessSeconds), "auto_continue_freshness_seconds",
                "must be a number of seconds, was " + autoContinueFreshnessSeconds);
        check.require(Double.isFinite(drainTimeoutSeconds) && drainTimeoutSeconds >= 0, "drain_timeout_seconds",
                "must be 0 or more seconds, was " + ConfigChecks.number(drainTimeoutSeconds));
        check.require(Double.isFinite(startupRestoreDrainTimeoutSeconds) && startupRestoreDrainTimeoutSeconds >= 0,
                "startup_restore_drain_timeout_seconds",
                "must be 0 or more seconds, was " + ConfigChecks.number(startupRestoreDrainTimeoutSeconds));
        check.require(busyInput != null, "busy_input", "must be queue, interrupt or steer");
        check.require(stuckLoopThreshold >= 1, "stuck_loop_threshold", "must be at least 1, was " + stuckLoopThreshold);
        check.require(Double.isFinite(redeliveryIntervalSeconds) && redeliveryIntervalSeconds >= 0.05, "redelivery_interval_seconds",
                "must be at least 0.05 seconds, was " + ConfigChecks.number(redeliveryIntervalSeconds));
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
