package dev.herald.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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
    /** After a turn is started (user message stored), before the agent runs. */
    public static final String BEFORE_AGENT = "turn.before-agent";
    /** After the agent answered, before its reply is recorded on the turn. */
    public static final String BEFORE_RECORD = "turn.before-record";

    private static final Set<String> ARMED = parse(System.getenv(ENV));
    private static final ConcurrentHashMap<String, AtomicInteger> FAILING = new ConcurrentHashMap<>();

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
        AtomicInteger left = FAILING.get(name);
        if (left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new InjectedFailure(name);
        }
    }

    /**
     * Makes the next {@code times} arrivals at {@code name}, in this JVM, throw {@link InjectedFailure}; closing
     * the result disarms the point. For in-process tests.
     */
    public static Injection failAt(String name, int times) {
        if (times < 1) {
            throw new IllegalArgumentException("crash point " + name + ": times must be at least 1, was " + times);
        }
        FAILING.put(name, new AtomicInteger(times));
        return () -> FAILING.remove(name);
    }

    /** An armed in-process failure; closing it disarms the point. */
    @FunctionalInterface
    public interface Injection extends AutoCloseable {
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
