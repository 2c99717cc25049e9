package dev.herald.core;

import java.time.Duration;

/** How a duration reads in a chat: whole seconds, minutes or hours, never a fraction. */
public final class Durations {
    private Durations() {
    }

    /** {@code d} as a chat reads it: "45 s", "12 min", "3 h". */
    public static String age(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return (s / 60) + " min";
        }
        return (s / 3600) + " h";
    }
}
