package dev.herald.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named places where the process can be made to die on purpose, exactly as a kill -9 or a power cut
 * would (no shutdown hooks, no flush), so tests can prove what survives a crash at the worst moment.
 * Off unless the environment variable {@value #ENV} lists point names (comma-separated); each listed
 * point halts the process the first time it is reached.
 *
 * <p>In-process tests cannot halt their own JVM; they use {@link #failAt} instead, which makes a point
 * throw {@link InjectedFailure} (a bug or a store hiccup at that place) a given number of times.
 */
public final class CrashPoints {
    public static final String ENV = "HERALD_CRASH_AT";
    /** After a turn's final reply is recorded, before it is sent. */
    public static final String BEFORE_SEND = "outbox.before-send";
    /** After the platform took a part of a reply, before its answer (the message id) is recorded. */
    public static final String AFTER_SEND = "outbox.after-send";
    /** After a turn is started (user message stored), before the agent runs. */
    public static final String BEFORE_AGENT = "turn.before-agent";
    /** After the agent answered, before its reply is recorded on the turn. */
    public static final String BEFORE_RECORD = "turn.before-record";

    private static final Set<String> ARMED = parse(System.getenv(ENV));
    private static final ConcurrentHashMap<String, Countdown> FAILING = new ConcurrentHashMap<>();

    private CrashPoints() {
    }

    /**
     * Halts the process with exit code 137 when {@code name} is armed; throws {@link InjectedFailure} when a
     * test made it fail ({@link #failAt}).
     */
    public static void reach(String name) {
        if (!ARMED.isEmpty() && ARMED.contains(name)) {
            System.err.println("crash point " + name + " reached: halting as kill -9 would");
            Runtime.getRuntime().halt(137);
        }
        Countdown countdown = FAILING.get(name);
        if (countdown != null && countdown.failNow()) {
            throw new InjectedFailure(name);
        }
    }

    /**
     * Makes the next {@code times} arrivals at {@code name}, in this JVM, throw {@link InjectedFailure}; closing
     * the result disarms the point. For in-process tests.
     */
    public static Injection failAt(String name, int times) {
        return failAt(name, 0, times);
    }

    /** Like {@link #failAt(String, int)}, after letting the first {@code pass} arrivals go through. */
    public static Injection failAt(String name, int pass, int times) {
        if (times < 1 || pass < 0) {
            throw new IllegalArgumentException("crash point " + name + ": times must be at least 1 and pass at least 0, was "
                    + times + " and " + pass);
        }
        Countdown countdown = new Countdown(pass, times);
        FAILING.put(name, countdown);
        return new Injection() {
            @Override
            public boolean fired() {
                return countdown.fired();
            }

            @Override
            public void close() {
                FAILING.remove(name, countdown);
            }
        };
    }

    /** Arrivals to let through, then arrivals to fail. */
    private static final class Countdown {
        private int pass;
        private int fail;
        private int failed;

        Countdown(int pass, int fail) {
            this.pass = pass;
            this.fail = fail;
        }

        synchronized boolean failNow() {
            if (pass > 0) {
                pass--;
                return false;
            }
            if (fail > 0) {
                fail--;
                failed++;
                return true;
            }
            return false;
        }

        synchronized boolean fired() {
            return failed > 0;
        }
    }

    /** An armed in-process failure; closing it disarms the point. */
    public interface Injection extends AutoCloseable {
        /** Whether the point has thrown at least once. */
        boolean fired();

        @Override
        void close();
    }

    /** What a point made to fail throws: an unexpected failure at that place, as a bug or a store hiccup would. */
    public static final class InjectedFailure extends RuntimeException {
        InjectedFailure(String point) {
            super("injected failure at crash point " + point);
        }
    }

    private static Set<String> parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return Set.of();
        }
        return Set.of(raw.strip().split("\\s*,\\s*"));
    }
}
