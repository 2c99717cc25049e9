package dev.herald.core;

import java.util.Set;

/**
 * Named places where the process can be made to die on purpose, exactly as a kill -9 or a power cut
 * would (no shutdown hooks, no flush), so tests can prove what survives a crash at the worst moment.
 * Off unless the environment variable {@value #ENV} lists point names (comma-separated); each listed
 * point halts the process the first time it is reached.
 */
public final class CrashPoints {
    public static final String ENV = "HERALD_CRASH_AT";
    /** After a turn's final reply is recorded, before it is sent. */
    public static final String BEFORE_SEND = "outbox.before-send";
    /** After a turn is started (user message stored), before the agent runs. */
    public static final String BEFORE_AGENT = "turn.before-agent";

    private static final Set<String> ARMED = parse(System.getenv(ENV));

    private CrashPoints() {
    }

    /** Halts the process with exit code 137 when {@code name} is armed. */
    public static void reach(String name) {
        if (!ARMED.isEmpty() && ARMED.contains(name)) {
            System.err.println("crash point " + name + " reached: halting as kill -9 would");
            Runtime.getRuntime().halt(137);
        }
    }

    private static Set<String> parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return Set.of();
        }
        return Set.of(raw.strip().split("\\s*,\\s*"));
    }
}
