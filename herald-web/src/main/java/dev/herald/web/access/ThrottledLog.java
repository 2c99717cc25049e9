package dev.herald.web.access;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;
import org.slf4j.Logger;

/**
 * Log lines about abuse that cannot flood the log: per subject (a client address), the first event is
 * logged at once, and later ones are counted and summed up in one line at most once per interval. An
 * attacker sending 2,000 requests a second therefore costs a handful of lines a minute. Keeps at most
 * {@link #MAX_SUBJECTS} subjects (the oldest are forgotten first).
 */
final class ThrottledLog {
    static final int MAX_SUBJECTS = 10_000;

    private final Logger log;
    private final long intervalNanos;
    private final Map<String, long[]> subjects = new LinkedHashMap<>(); // subject -> {last line at, events since}

    ThrottledLog(Logger log, long intervalNanos) {
        this.log = log;
        this.intervalNanos = intervalNanos;
    }

    /**
     * Counts one event of {@code subject}; logs {@code line.apply(n)} at INFO when a line is due, where
     * {@code n} is the number of events the line covers (1 for the first).
     */
    synchronized void event(String subject, long now, LongFunction<String> line) {
        long[] s = subjects.get(subject);
        if (s == null) {
            if (subjects.size() >= MAX_SUBJECTS) {
                Iterator<String> oldest = subjects.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
            subjects.put(subject, new long[] {now, 0});
            log.info(line.apply(1));
            return;
        }
        s[1]++;
        if (now - s[0] >= intervalNanos) {
            long n = s[1];
            s[0] = now;
            s[1] = 0;
            log.info(line.apply(n));
        }
    }
}
