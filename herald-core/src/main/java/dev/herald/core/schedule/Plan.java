package dev.herald.core.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What to do about a job that is due: which occurrence (if any) to run now, and the job's next time.
 *
 * <p>The due times are every occurrence from the stored next run {@code t0} up to now. The latest of them
 * decides: within {@code grace} of now it runs on time (earlier ones, if any, were missed and fold into
 * it); later than that it was missed, and the job's misfire policy decides: {@code run_once} runs it once
 * as a catch-up if it is within the catch-up window, {@code skip} (or {@code run_once} past the window)
 * records it as not run. Either way the next time is the first occurrence after now, so several missed
 * times never become several runs.
 *
 * @param key     the occurrence this decision is about (the latest due time); a run's key
 * @param kind    on time, catch-up, or not run
 * @param due     how many due times this covers (at least 1; {@link #MANY} when there were more than that)
 * @param next    the job's next time after this, or null when the schedule has no more
 * @param outcome for a decision not to run: {@code skipped} or {@code missed}; else null
 */
record Plan(Instant key, JobRun.Kind kind, int due, Instant next, String outcome) {
    /** Due times counted one by one at most; a longer outage is reported as this many. */
    static final int MANY = 1_000;

    boolean runs() {
        return kind != JobRun.Kind.NOT_RUN;
    }

    static Plan of(Schedule schedule, Instant t0, Instant now, Duration grace, Misfire misfire, Duration window) {
        Instant latest = t0;
        int count = 1;
        Optional<Instant> n = schedule.nextAfter(t0);
        while (n.isPresent() && !n.get().isAfter(now)) {
            if (count >= MANY) {
                // a long outage: the latest due time is the last one in the part of the past that could still run
                Duration back = window.compareTo(grace) > 0 ? window : grace;
                Optional<Instant> recent = schedule.nextAfter(now.minus(back).minusMillis(1));
                while (recent.isPresent() && !recent.get().isAfter(now)) {
                    latest = recent.get();
                    recent = schedule.nextAfter(latest);
                }
                n = schedule.nextAfter(now);
                break;
            }
            latest = n.get();
            count++;
            n = schedule.nextAfter(latest);
        }
        Instant next = n.orElse(null);
        Duration late = Duration.between(latest, now);
        if (late.compareTo(grace) <= 0) {
            return new Plan(latest, JobRun.Kind.ON_TIME, count, next, null);
        }
        if (misfire == Misfire.RUN_ONCE && late.compareTo(window) <= 0) {
            return new Plan(latest, JobRun.Kind.CATCH_UP, count, next, null);
        }
        return new Plan(latest, JobRun.Kind.NOT_RUN, count, next, misfire == Misfire.SKIP ? "skipped" : "missed");
    }
}
