package dev.herald.app.runtime;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code herald run} without a service manager: this process only supervises; the gateway runs in a
 * child JVM started with the same command line. The child exits 75 to ask for a restart (it has drained
 * already) and a new child starts at once; it exits 0 after a shutdown, and the supervisor exits too. A
 * child that dies otherwise (a crash, kill -9, the OOM killer) is restarted after a backoff that grows
 * with repeated crashes; a configuration or environment error (78: a bad value, a port in use, a database that
 * is not one, a home another gateway holds) or a usage error (64) ends supervision, since no restart cures it. SIGTERM and
 * SIGINT are passed to the child, which drains; SIGUSR1 is passed on as a restart request.
 *
 * <p>A restart that hands over ({@code gateway.restart_mode: handover}): the child asks with SIGUSR2, having written its
 * node id and pid to {@code handover_request.json} in the home. The supervisor starts the new child at once, with
 * {@link Succession}'s environment, and writes its pid to {@code handover.json}; the old child is retiring: it finishes
 * its turns and exits, and its exit is only logged. Should the new child exit while the old one still runs, the old one
 * is the supervised child again (it keeps serving).
 */
public final class Supervisor {
    private static final Lines log = new Lines(System.getenv("HERALD_LOG_LEVEL"));
    public static final String CHILD_ENV = "HERALD_SUPERVISED_CHILD";
    /**
     * The gateway JVM's options, set by the launcher script ({@code bin/herald}) when it starts this supervisor with a small
     * JVM of its own; without it the child gets this JVM's {@code -Xm}, {@code -XX:} and {@code -D} options.
     */
    public static final String CHILD_JAVA_OPTS_ENV = "HERALD_CHILD_JAVA_OPTS";
    static final int RESTART = 75;

    public static final String HANDOVER_REQUEST = "handover_request.json";
    public static final String HANDOVER_STATE = "handover.json";

    private final List<String> command;
    private final java.nio.file.Path home;
    private final AtomicReference<Process> child = new AtomicReference<>();
    private final java.util.Set<Process> retiring = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicBoolean stopping = new AtomicBoolean();

    public Supervisor(List<String> command) {
        this(command, null);
    }

    /** A supervisor of the gateway of {@code home}, which may hand over to a new child on restarts. */
    public Supervisor(List<String> command, java.nio.file.Path home) {
        this.command = List.copyOf(command);
        this.home = home;
    }

    /** Whether {@code herald run} should supervise itself in this environment. */
    public static boolean wanted(Map<String, String> env) {
        return !"1".equals(env.get(CHILD_ENV)) && env.get("INVOCATION_ID") == null;
    }

    /**
     * The command that starts a child gateway: this JVM's java, the options {@link #CHILD_JAVA_OPTS_ENV} names (else this
     * JVM's own), class path and main class, then {@code args}.
     */
    public static List<String> childCommand(String mainClass, List<String> args, Map<String, String> env) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        String childOpts = env.get(CHILD_JAVA_OPTS_ENV);
        if (childOpts != null) {
            for (String a : childOpts.strip().split("\\s+")) {
                if (!a.isEmpty()) {
                    cmd.add(a);
                }
            }
        } else {
            for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("-Xm") || a.startsWith("-XX:") || a.startsWith("-D")) {
                    cmd.add(a);
                }
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    public int run() throws InterruptedException {
        handle("TERM", () -> forwardStop("TERM"));
        handle("INT", () -> forwardStop("INT"));
        handle("USR1", () -> signalChild("USR1"));
        handle("USR2", this::handOver);
        int crashes = 0;
        Process p = null;
        while (true) {
            long started = System.nanoTime();
            if (p == null) {
                try {
                    p = start(Map.of());
                } catch (IOException e) {
                    log.error("supervisor - could not start the gateway process: {}", e.getMessage());
                    return 1;
                }
            }
            int code = p.waitFor();
            if (retiring.remove(p)) {
                log.info("supervisor - gateway {} handed over to {} and exited {}", p.pid(), pidOf(child.get()), code);
                p = child.get();
                continue;
            }
            long pid = p.pid();
            p = null;
            child.set(null);
            if (stopping.get()) {
                return code == RESTART ? 0 : code;
            }
            if (code == RESTART) {
                log.info("supervisor - gateway {} asked for a restart; starting a new one", pid);
                crashes = 0;
                continue;
            }
            if (code == 0) {
                return code;
            }
            if (code == 64 || code == 78) {
                log.error("supervisor - gateway {} exited {} ({} error, explained above); not restarting it: a restart cannot fix that",
                        pid, code, code == 78 ? "a configuration or environment" : "a usage");
                return code;
            }
            crashes = Duration.ofNanos(System.nanoTime() - started).toSeconds() > 60 ? 1 : crashes + 1;
            Duration wait = Duration.ofSeconds(Math.min(30, 1L << Math.min(crashes - 1, 5)));
            log.warn("supervisor - gateway {} died (exit {}); starting a new one in {} s (crash {} in a row)",
                    pid, code, wait.toSeconds(), crashes);
            Thread.sleep(wait);
            if (stopping.get()) {
                return 0;
            }
        }
    }

    private static void handle(String name, Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> {
                log.info("supervisor - SIG{} received", name);
                action.run();
            });
        } catch (IllegalArgumentException e) {
            log.warn("supervisor - cannot handle SIG{} here: {}", name, e.getMessage());
        }
    }

    private static String pidOf(Process p) {
        return p == null ? "nobody" : Long.toString(p.pid());
    }

    /**
     * The child asked to hand over (SIGUSR2): its successor starts now; the old child retires. Runs on the signal's thread.
     */
    private void handOver() {
        Process old = child.get();
        if (home == null || stopping.get() || old == null || !old.isAlive() || retiring.contains(old)) {
            log.warn("supervisor - a handover request was ignored (no running gateway to hand over from, or one is under way)");
            return;
        }
        String node;
        try {
            var request = RunFiles.json().readTree(java.nio.file.Files.readString(home.resolve(HANDOVER_REQUEST)));
            if (request.path("pid").asLong() != old.pid()) {
                log.warn("supervisor - the handover request names pid {}, not the gateway {}; ignored", request.path("pid").asLong(),
                        old.pid());
                return;
            }
            node = request.path("node").asText();
        } catch (IOException | RuntimeException e) {
            log.warn("supervisor - the handover request could not be read ({}); ignored", e.toString());
            return;
        }
        Process next;
        try {
            next = start(Map.of(Succession.FROM_ENV, node, Succession.PID_ENV, Long.toString(old.pid())));
        } catch (IOException e) {
            log.error("supervisor - could not start the new gateway for the handover: {}; {} keeps running", e.getMessage(), old.pid());
            return;
        }
        retiring.add(old);
        var state = RunFiles.json().createObjectNode().put("from_node", node).put("from_pid", old.pid()).put("successor_pid", next.pid());
        RunFiles.write(home.resolve(HANDOVER_STATE), state.toPrettyString());
        log.info("supervisor - gateway {} hands over to the new gateway {}", old.pid(), next.pid());
        next.onExit().thenAccept(gone -> {
            if (old.isAlive() && retiring.remove(old) && child.compareAndSet(next, old)) {
                log.error("supervisor - the new gateway {} exited {} before {} had handed over; {} keeps running", next.pid(),
                        gone.exitValue(), old.pid(), old.pid());
            }
        });
    }

    private Process start(Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(withoutStaleAotCache(command)).inheritIO();
        pb.environment().put(CHILD_ENV, "1");
        pb.environment().remove(CHILD_JAVA_OPTS_ENV); // the gateway's own child processes (tools) have no use for it
        pb.environment().putAll(env);
        pb.environment().put("HERALD_SUPERVISOR_PID", Long.toString(ProcessHandle.current().pid()));
        Process p = pb.start();
        child.set(p);
        log.info("supervisor - gateway process {} started", p.pid());
        return p;
    }

    /**
     * {@code command} without its {@code -XX:AOTCache=} option when a jar on its class path is newer than the cache (or the
     * cache is gone): the jar was rebuilt since the cache was made (a checkout's {@code mvn package} while Herald runs, then
     * a restart). The JVM should refuse such a cache itself, but JDK 25 before 25.0.4 does not (JDK-8377932) and would run
     * the cached classes of the old build with the new jar's other classes. Started without the cache, the gateway is only
     * slower to start; {@code bin/herald} makes a new cache on its next run.
     */
    static List<String> withoutStaleAotCache(List<String> command) {
        String option = null;
        String classPath = null;
        for (int i = 0; i < command.size(); i++) {
            String a = command.get(i);
            if (a.startsWith("-XX:AOTCache=")) {
                option = a;
            } else if ((a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path") || a.equals("-jar"))
                    && i + 1 < command.size()) {
                classPath = command.get(i + 1);
                break;
            }
        }
        if (option == null || classPath == null) {
            return command;
        }
        java.io.File cache = new java.io.File(option.substring("-XX:AOTCache=".length()));
        long madeAt = cache.lastModified(); // 0 when the file is gone
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty() && new java.io.File(entry).lastModified() > madeAt) {
                log.warn("supervisor - {} changed after the start-up cache {} was made; this gateway starts without the cache",
                        entry, cache);
                List<String> without = new ArrayList<>(command);
                without.remove(option);
                return List.copyOf(without);
            }
        }
        return command;
    }

    /**
     * Passes a stop signal on as itself: a terminal's Ctrl-C reaches the gateway directly too, and the gateway logs the
     * first of the two; passed on as SIGTERM, it could arrive first and the log would name a signal nobody sent.
     */
    private void forwardStop(String signal) {
        stopping.set(true);
        signalChild(signal);
    }

    private void signalChild(String signal) {
        if (signal.equals("TERM") || signal.equals("INT")) {
            retiring.forEach(r -> signal(r, signal)); // a retiring gateway drains too
        }
        signal(child.get(), signal);
    }

    private void signal(Process p, String signal) {
        if (p == null || !p.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            log.warn("supervisor - could not pass SIG{} to {}: {}", signal, p.pid(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The supervisor's log lines, in Herald's format ({@code 2026-12-04 05:31:36.563 WARN  supervisor - ...}) on standard
     * error, written without a logging framework: the supervising launcher then loads none (about 300 classes and a tenth
     * of a second of its start, before the gateway can start). Warnings and errors are printed, as the console showed them
     * before; the info lines (a child started, a restart asked for) too when {@code HERALD_LOG_LEVEL} is set to info or
     * finer.
     */
    static final class Lines {
        private static final java.time.format.DateTimeFormatter TIME =
                java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(java.time.ZoneId.systemDefault());
        private final boolean info;

        Lines(String level) {
            String l = level == null ? "" : level.strip().toLowerCase(java.util.Locale.ROOT);
            this.info = l.equals("info") || l.equals("debug") || l.equals("trace");
        }

        void info(String message, Object... args) {
            if (info) {
                print("INFO ", message, args);
            }
        }

        void warn(String message, Object... args) {
            print("WARN ", message, args);
        }

        void error(String message, Object... args) {
            print("ERROR", message, args);
        }

        /** {@code message} with each {@code {}} replaced by the next of {@code args}, as one line. */
        static String format(String message, Object... args) {
            StringBuilder line = new StringBuilder(message.length() + 32);
            int from = 0;
            int next = 0;
            for (int at = message.indexOf("{}"); at >= 0 && next < args.length; at = message.indexOf("{}", from)) {
                line.append(message, from, at).append(args[next++]);
                from = at + 2;
            }
            return line.append(message, from, message.length()).toString();
        }

        private static void print(String level, String message, Object... args) {
            String line = TIME.format(java.time.Instant.now()) + " " + level + " " + format(message, args);
            synchronized (System.err) {
                System.err.println(line);
            }
        }
    }
}
