package dev.herald.app;

import dev.herald.app.runtime.RunFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald restart}: asks the running gateway of a home to restart gracefully (SIGUSR1 to the pid in
 * {@code gateway.pid}) and waits until the new process runs. With {@code gateway.restart_mode: handover} under
 * {@code herald run}'s supervisor the new process starts first and the old one then finishes its running turns;
 * otherwise the old one drains like a stop, exits 75, and its supervisor or service manager starts a new process.
 */
@Command(name = "restart", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Restart the running gateway gracefully (drain, then a new process) and wait until it is back.")
final class RestartCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "180",
            description = "How long to wait for the new process (default ${DEFAULT-VALUE}; the drain itself may take up to "
                    + "gateway.drain_timeout_seconds).")
    long timeoutSeconds;

    RestartCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Path home = where.home(cli);
        RunFiles files = new RunFiles(home);
        OptionalLong pid = files.readPid();
        if (pid.isEmpty() || !ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive).orElse(false)) {
            cli.err().println("herald restart - no running gateway in " + home + " (no live pid in " + files.pidFile() + ")");
            return ExitCodes.FAILURE;
        }
        long old = pid.getAsLong();
        int rc = new ProcessBuilder("kill", "-USR1", Long.toString(old)).inheritIO().start().waitFor();
        if (rc != 0) {
            cli.err().println("herald restart - could not signal pid " + old + " (kill exited " + rc + ")");
            return ExitCodes.FAILURE;
        }
        String upTo = drainSeconds(home).map(d -> d + " s").orElse("gateway.drain_timeout_seconds");
        boolean handover = handsOver(home, files);
        cli.out().println(handover
                ? "herald restart - asked pid " + old + " to restart; the new process starts first, then pid " + old
                        + " lets its running turns finish (up to " + upTo + ") and exits"
                : "herald restart - asked pid " + old + " to restart; it drains running turns first (up to " + upTo + ")");
        cli.out().flush();
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(timeoutSeconds).toNanos();
        Progress progress = new Progress(old, drainSeconds(home), start, handover);
        while (System.nanoTime() < deadline) {
            progress.report(files, cli.out());
            OptionalLong now = files.readPid();
            if (now.isPresent() && now.getAsLong() != old && ProcessHandle.of(now.getAsLong()).map(ProcessHandle::isAlive).orElse(false)
                    && "running".equals(new dev.herald.app.runtime.StatusFile(files.stateFile()).read()
                            .map(s -> s.path("pid").asLong() == now.getAsLong() ? s.path("state").asText() : "").orElse(""))) {
                cli.out().println("herald restart - restarted: pid " + old + " -> " + now.getAsLong() + " in "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms"
                        + (handover && ProcessHandle.of(old).map(ProcessHandle::isAlive).orElse(false)
                                ? "; pid " + old + " finishes its running turns and exits" : ""));
                cli.out().flush();
                return ExitCodes.OK;
            }
            Thread.sleep(100);
        }
        cli.err().println("herald restart - no new gateway process within " + timeoutSeconds + " s; pid " + old
                + (ProcessHandle.of(old).map(ProcessHandle::isAlive).orElse(false) ? " is still draining"
                        : " exited; if it runs without a supervisor (herald run --foreground), start it again"));
        return ExitCodes.FAILURE;
    }

    /** Whether the restart hands over: restart_mode handover, and the gateway runs under herald run's supervisor. */
    private boolean handsOver(Path home, RunFiles files) {
        try {
            boolean supervised = dev.herald.app.runtime.RunFiles.json().readTree(java.nio.file.Files.readString(files.pidFile()))
                    .hasNonNull("supervisor_pid");
            return supervised && new dev.herald.app.config.ConfigLoader(cli.env()).load(where.configFile(home), where.configExplicit(), home)
                    .config().gateway().restartMode() == dev.herald.core.gateway.RestartMode.HANDOVER;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** gateway.drain_timeout_seconds of this home's configuration, when it can be read. */
    private java.util.Optional<Long> drainSeconds(Path home) {
        try {
            return java.util.Optional.of(new dev.herald.app.config.ConfigLoader(cli.env())
                    .load(where.configFile(home), where.configExplicit(), home).config().gateway().drainTimeout().toSeconds());
        } catch (RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /**
     * What the wait is for, printed when it changes and every 5 s: the old gateway's drain (turns still running,
     * seconds left), its exit, the new process starting. Read from the files the gateways keep in the home.
     */
    private static final class Progress {
        private final long old;
        private final java.util.Optional<Long> drainSeconds;
        private final long start;
        private String last = "";
        private long lastAt;

        private final boolean handover;

        Progress(long old, java.util.Optional<Long> drainSeconds, long start, boolean handover) {
            this.handover = handover;
            this.old = old;
            this.drainSeconds = drainSeconds;
            this.start = start;
        }

        void report(RunFiles files, java.io.PrintWriter out) {
            long elapsed = Duration.ofNanos(System.nanoTime() - start).toSeconds();
            String line;
            if (ProcessHandle.of(old).map(ProcessHandle::isAlive).orElse(false)) {
                var state = new dev.herald.app.runtime.StatusFile(files.stateFile()).read().filter(s -> s.path("pid").asLong() == old);
                int turns = state.map(s -> s.path("active_turns").asInt()).orElse(0);
                if (handover) {
                    OptionalLong now = files.readPid();
                    line = now.isPresent() && now.getAsLong() != old ? "new gateway pid " + now.getAsLong() + " starting; pid " + old
                            + " still serves" : "pid " + old + " serves while the new process starts";
                    print(line, elapsed, out);
                    return;
                }
                String left = drainSeconds.map(d -> ", at most " + Math.max(0, d - elapsed) + " s of the drain left").orElse("");
                line = "pid " + old + " " + state.map(s -> s.path("state").asText("stopping")).orElse("stopping") + ": "
                        + (turns == 1 ? "1 turn still running" : turns + " turns still running") + left;
            } else {
                OptionalLong now = files.readPid();
                line = now.isPresent() && now.getAsLong() != old ? "new gateway pid " + now.getAsLong() + " starting"
                        : "pid " + old + " stopped; waiting for the new gateway process";
            }
            print(line, elapsed, out);
        }

        private void print(String line, long elapsed, java.io.PrintWriter out) {
            if (!line.equals(last) || System.nanoTime() - lastAt > Duration.ofSeconds(5).toNanos()) {
                out.println("herald restart - " + line + " (" + elapsed + " s)");
                out.flush();
                last = line;
                lastAt = System.nanoTime();
            }
        }
    }
}
