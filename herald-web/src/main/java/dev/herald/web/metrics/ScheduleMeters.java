package dev.herald.web.metrics;

import dev.herald.core.schedule.ScheduleMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;

/**
 * The scheduler's figures in Herald's registry: {@code herald_schedule_runs_total{job,outcome}} (every
 * occurrence that ended or was decided about: ok, failed, interrupted, refused, skipped, missed, ...) and
 * {@code herald_schedule_lag_seconds} (how late occurrences started: count, sum and max).
 */
public final class ScheduleMeters implements ScheduleMetrics {
    private final HeraldMetrics metrics;
    private final Timer lag;

    public ScheduleMeters(HeraldMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.lag = Timer.builder("herald.schedule.lag").description("from an occurrence's scheduled time to its turn being stored")
                .register(metrics.registry());
    }

    @Override
    public void run(String job, String outcome) {
        Counter.builder("herald.schedule.runs").description("scheduled occurrences by job and outcome").tag("job", job)
                .tag("outcome", outcome == null ? "unknown" : outcome).register(metrics.registry()).increment();
    }

    @Override
    public void lag(Duration late) {
        lag.record(late);
    }
}
