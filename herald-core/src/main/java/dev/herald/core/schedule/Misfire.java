package dev.herald.core.schedule;

import java.util.Locale;

/**
 * What a job does about occurrences that passed while nothing could run them (Herald was down, the job
 * was due during a long pause). Either way several missed occurrences never become several runs.
 */
public enum Misfire {
    /** One catch-up run for all that was missed, if the latest missed time is within the job's catch-up window. */
    RUN_ONCE,
    /** No catch-up: the job waits for its next time. */
    SKIP;

    /** {@code run_once} or {@code skip}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code run_once} or {@code skip} (case-insensitive, '-' for '_').
     *
     * @throws IllegalArgumentException naming the value
     */
    public static Misfire of(String code) {
        String c = code == null ? "" : code.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        for (Misfire m : values()) {
            if (m.name().equals(c)) {
                return m;
            }
        }
        throw new IllegalArgumentException("schedule - misfire must be run_once or skip, was '" + code + "'");
    }
}
