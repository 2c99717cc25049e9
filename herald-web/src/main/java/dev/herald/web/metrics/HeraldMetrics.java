package dev.herald.web.metrics;

import dev.herald.core.continuity.NoteInjector;
import dev.herald.core.inbound.GatewayState;
import dev.herald.core.inbound.GatewayStatus;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Herald's metrics in a Prometheus registry: what the gateway reports through {@link GatewayMetrics},
 * what the agent reports through {@link MeteredAgent}, and gauges read from the gateway's status.
 *
 * <p>Names as scraped: {@code herald_turns_total{platform,outcome}}, {@code herald_turn_duration_seconds},
 * {@code herald_turns_started_total{platform,origin,note}}, {@code herald_model_call_duration_seconds},
 * {@code herald_model_first_token_seconds}, {@code herald_tool_calls_total{tool,ok}},
 * {@code herald_resumes_total{platform,reason}}, {@code herald_sessions_suspended_total{reason}},
 * {@code herald_platform_reconnects_total{platform}}, {@code herald_platform_connected{platform}},
 * {@code herald_turns_active}, {@code herald_turns_waiting}, {@code herald_lanes_claimed},
 * {@code herald_gateway_running}, plus JVM memory, threads, CPU and uptime.
 */
public final class HeraldMetrics implements GatewayMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Turn ends per second of the last minute: 60 counters, whatever the rate (a list of times held 36,000 at 600/s). */
    private final long[] endsInSecond = new long[60];
    private final long[] secondOfSlot = new long[60];
    private final Map<Platform, ConnectionState> connections = new ConcurrentHashMap<>();
    private final Map<Platform, Boolean> everConnected = new ConcurrentHashMap<>();
    private volatile Supplier<GatewayStatus> status;
    private volatile TurnError lastError;

    /**
     * The last turn that ended in an error, as the operator sees it: the session and the detailed message
     * (which may name the model's endpoint; the chat user got a shorter text). For the admin page.
     */
    public record TurnError(java.time.Instant at, String session, String detail) {
    }

    public HeraldMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    /** Adds the gauges read from the running gateway's status (called once the gateway exists). */
    public HeraldMetrics bind(Supplier<GatewayStatus> gatewayStatus) {
        if (this.status != null) {
            throw new IllegalStateException("metrics - already bound to a gateway");
        }
        this.status = gatewayStatus;
        Gauge.builder("herald.turns.active", this, m -> m.statusValue(GatewayStatus::activeTurns))
                .description("turns running now").register(registry);
        Gauge.builder("herald.turns.waiting", this, m -> m.statusValue(GatewayStatus::waitingTurns))
                .description("turns queued behind running ones or held by start-up restore").register(registry);
        Gauge.builder("herald.lanes.claimed", this, m -> m.statusValue(GatewayStatus::claimedLanes))
                .description("sessions whose lane is taken").register(registry);
        Gauge.builder("herald.gateway.running", this, m -> m.statusValue(s -> s.state() == GatewayState.RUNNING ? 1 : 0))
                .description("1 while the gateway is running (ready), else 0").register(registry);
        return this;
    }

    private double statusValue(java.util.function.ToIntFunction<GatewayStatus> f) {
        Supplier<GatewayStatus> s = status;
        return s == null ? Double.NaN : f.applyAsInt(s.get());
    }

    @Override
    public void turnStarted(TurnRecord turn, NoteInjector.Note note) {
        Counter.builder("herald.turns.started").description("turns started, by origin (user or resume) and continuity note")
                .tag("platform", turn.source().platform().id()).tag("origin", turn.origin().name().toLowerCase())
                .tag("note", note == null ? "none" : note.name().toLowerCase()).register(registry).increment();
    }

    @Override
    public void turnEnded(TurnRecord turn, TurnOutcome outcome, long nanos) {
        String platform = turn.source().platform().id();
        String kind = outcome == null ? "unknown" : outcome.kind();
        Counter.builder("herald.turns").description("turns ended, by outcome").tag("platform", platform).tag("outcome", kind)
                .register(registry).increment();
        Timer.builder("herald.turn.duration").description("time from a turn's start to its outcome")
                .tag("platform", platform).tag("outcome", kind).register(registry).record(Duration.ofNanos(nanos));
        countTurnEnd(System.nanoTime() / 1_000_000_000L);
        if (outcome instanceof TurnOutcome.Errored e) {
            lastError = new TurnError(java.time.Instant.now(), turn.sessionKey().value(), e.detail());
        }
    }

    /** The last turn that ended in an error since start, if any. */
    public java.util.Optional<TurnError> lastError() {
        return java.util.Optional.ofNullable(lastError);
    }

    @Override
    public void resumeScheduled(Platform platform, String reason) {
        Counter.builder("herald.resumes").description("automatic resumes scheduled, by reason").tag("platform", platform.id())
                .tag("reason", reason == null ? "unknown" : reason).register(registry).increment();
    }

    @Override
    public void sessionsSuspended(int count, String why) {
        Counter c = Counter.builder("herald.sessions.suspended").description("sessions suspended, by reason")
                .tag("reason", why == null ? "unknown" : why).register(registry);
        if (count > 0) {
            c.increment(count);
        }
    }

    @Override
    public void replyNotDelivered(Platform platform, boolean permanent) {
        Counter.builder("herald.replies.undelivered")
                .description("delivery attempts of recorded replies that failed; permanent=true: refused for good, not retried")
                .tag("platform", platform.id()).tag("permanent", Boolean.toString(permanent)).register(registry).increment();
    }

    @Override
    public void platformConnection(Platform platform, String state) {
        ConnectionState s;
        try {
            s = ConnectionState.valueOf(state);
        } catch (IllegalArgumentException | NullPointerException e) {
            return;
        }
        ConnectionState before = connections.put(platform, s);
        Counter reconnects = Counter.builder("herald.platform.reconnects")
                .description("connections of a platform after its first one in this process").tag("platform", platform.id())
                .register(registry);
        if (before == null) {
            Gauge.builder("herald.platform.connected", connections, m -> m.get(platform) == ConnectionState.CONNECTED ? 1 : 0)
                    .description("1 while the platform is connected").tag("platform", platform.id()).register(registry);
        }
        if (s == ConnectionState.CONNECTED && before != ConnectionState.CONNECTED
                && everConnected.putIfAbsent(platform, Boolean.TRUE) != null) {
            reconnects.increment();
        }
    }

    /** One model call's duration and time to its first text, as {@link MeteredAgent} measures them. */
    void modelCall(Duration duration, Duration firstToken, String outcome) {
        Timer.builder("herald.model.call.duration")
                .description("one model call, from the request until its message was complete (tool time excluded)")
                .tag("outcome", outcome).register(registry).record(duration);
        if (firstToken != null) {
            Timer.builder("herald.model.first.token").description("time from a model call's start to its first streamed text")
                    .register(registry).record(firstToken);
        }
    }

    void toolCall(String tool, boolean ok) {
        Counter.builder("herald.tool.calls").description("tool calls finished, by tool and result").tag("tool", tool)
                .tag("ok", Boolean.toString(ok)).register(registry).increment();
    }

    /** Turns that ended in the last minute (to the second). */
    public int turnsLastMinute() {
        long second = System.nanoTime() / 1_000_000_000L;
        long total = 0;
        synchronized (endsInSecond) {
            for (int i = 0; i < endsInSecond.length; i++) {
                if (second - secondOfSlot[i] < endsInSecond.length) {
                    total += endsInSecond[i];
                }
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, total);
    }

    private void countTurnEnd(long second) {
        int slot = (int) Math.floorMod(second, (long) endsInSecond.length);
        synchronized (endsInSecond) {
            if (secondOfSlot[slot] != second) {
                secondOfSlot[slot] = second;
                endsInSecond[slot] = 0;
            }
            endsInSecond[slot]++;
        }
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }
}
