package dev.herald.core.schedule;

import java.time.Duration;

/** What the scheduler reports for /metrics; the web module implements it with the metrics registry. */
public interface ScheduleMetrics {

    /** An occurrence of {@code job} ended or was decided about, with {@code outcome} (ok, failed, refused, skipped, missed, ...). */
    default void run(String job, String outcome) {
    }

    /** How late an occurrence started, from its scheduled time to the gateway storing its turn. */
    default void lag(Duration late) {
    }

    ScheduleMetrics NONE = new ScheduleMetrics() {
    };
}
