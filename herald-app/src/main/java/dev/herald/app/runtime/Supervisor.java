package dev.herald.app.runtime;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code herald run} without a service manager: this process only supervises; the gateway runs in a
 * child JVM started with the same command line. The child exits 75 to ask for a restart (it has drained
 * already) and a new child starts at once; it exits 0 after a shutdown, and the supervisor exits too. A
 * child that dies otherwise (a crash, kill -9, the OOM killer) is restarted after a backoff that grows
 * with repeated crashes; a configuration or environment error (78: a bad value, a port in use, a database that
 * is not one, a home another gateway holds) or a usage error (64) ends supervision, since no restart cures it. SIGTERM and
 * SIGINT are passed to the child, which drains; SIGUSR1 is passed on as a restart request.
 */
public final class Supervisor {
    private static final Logger log = LoggerFactory.getLogger("supervisor");
    public static final String CHILD_ENV = "HERALD_SUPERVISED_CHILD";
    static final int RESTART = 75;

    private final List<String> command;
    private final AtomicReference<Process> child = new AtomicReference<>();
    private final AtomicBoolean stopping = new AtomicBoolean();

    public Supervisor(List<String> command) {
        this.command = List.copyOf(command);
    }

    /** Whether {@code herald run} should supervise itself in this environment. */
    public static boolean wanted(Map<String, String> env) {
        return !"1".equals(env.get(CHILD_ENV)) && env.get("INVOCATION_ID") == null;
    }

    /** The command that starts a child gateway: this JVM's java, class path and main class, then {@code args}. */
    public static List<String> childCommand(String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("-Xm") || a.startsWith("-XX:") || a.startsWith("-D")) {
                cmd.add(a);
            }
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    public int run() throws InterruptedException {
        Signals.handle("TERM", () -> forwardStop("TERM"));
        Signals.handle("INT", () -> forwardStop("INT"));
        Signals.handle("USR1", () -> signalChild("USR1"));
        int crashes = 0;
        while (true) {
            long started = System.nanoTime();
            Process p;
            try {
                p = start();
            } catch (IOException e) {
                log.error("supervisor - could not start the gateway process: {}", e.getMessage());
                return 1;
            }
            int code = p.waitFor();
            child.set(null);
            if (stopping.get()) {
                return code == RESTART ? 0 : code;
            }
            if (code == RESTART) {
                log.info("supervisor - gateway {} asked for a restart; starting a new one", p.pid());
                crashes = 0;
                continue;
            }
            if (code == 0) {
                return code;
            }
            if (code == 64 || code == 78) {
                log.error("supervisor - gateway {} exited {} ({} error, explained above); not restarting it: a restart cannot fix that",
                        p.pid(), code, code == 78 ? "a configuration or environment" : "a usage");
                return code;
            }
            crashes = Duration.ofNanos(System.nanoTime() - started).toSeconds() > 60 ? 1 : crashes + 1;
            Duration wait = Duration.ofSeconds(Math.min(30, 1L << Math.min(crashes - 1, 5)));
            log.warn("supervisor - gateway {} died (exit {}); starting a new one in {} s (crash {} in a row)",
                    p.pid(), code, wait.toSeconds(), crashes);
            Thread.sleep(wait);
            if (stopping.get()) {
                return 0;
            }
        }
    }

    private Process start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().put(CHILD_ENV, "1");
        pb.environment().put("HERALD_SUPERVISOR_PID", Long.toString(ProcessHandle.current().pid()));
        Process p = pb.start();
        child.set(p);
        log.info("supervisor - gateway process {} started", p.pid());
        return p;
    }

    private void forwardStop(String signal) {
        stopping.set(true);
        signalChild("TERM");
    }

    private void signalChild(String signal) {
        Process p = child.get();
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
}
