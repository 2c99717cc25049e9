package dev.herald.app;

import dev.herald.app.config.HeraldConfig;
import dev.herald.core.gateway.RestartMode;
import dev.herald.app.runtime.CrashLoopBreaker;
import dev.herald.app.runtime.Handover;
import dev.herald.app.runtime.HomePermissions;
import dev.herald.app.runtime.OldGenTrim;
import dev.herald.app.runtime.RunFiles;
import dev.herald.app.runtime.Signals;
import dev.herald.app.runtime.StatusFile;
import dev.herald.app.runtime.StopRequests;
import dev.herald.app.runtime.Succession;
import dev.herald.app.runtime.Wiring;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.session.SessionSource;
import dev.herald.web.WebServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway process from start to exit: wire the parts and bind the port, read what the previous run left
 * (clean-stop marker, restart request, crash-loop record), start the gateway, write the pid and status files,
 * wait for a stop request (signal, /restart), drain, and exit 0 for a shutdown or 75 to be restarted.
 *
 * <p>The caller has claimed the store ({@link dev.herald.app.runtime.Stores#claim}) before this runs, so no other
 * gateway reads or writes these files meanwhile. The steps that can fail for good (a database that is not one, a
 * port another program holds) come before any run file is read or written: such a failure exits 78 with one
 * line and leaves the previous run's clean-stop marker and restart request where they were.
 *
 * <p>A restart hands over when {@code gateway.restart_mode} is {@code handover} and a supervisor runs this process: the
 * new process starts first ({@link Handover}), this one then stops listening, lets its running turns finish and deliver,
 * and exits; it writes no clean-stop marker and leaves the pid and status files to the new process. A process that
 * takes over ({@link Succession}) shares the port and counts its start as clean. Without a supervisor (systemd,
 * containers, {@code --foreground}) a restart drains as before.
 */
public final class HeraldRuntime {
    private static final Logger LOG = LoggerFactory.getLogger("runtime");
    /** The exit code that asks the supervisor (or systemd) for a new process (EX_TEMPFAIL). */
    public static final int RESTART_EXIT = 75;
    static final String SUPERVISOR_PID_ENV = "HERALD_SUPERVISOR_PID";

    private HeraldRuntime() {
    }

    /** Runs Herald until it stops; returns the process exit code. */
    public static int run(HeraldConfig config, Path home, boolean demo) {
        return run(config, home, demo, Succession.none());
    }

    /** {@link #run(HeraldConfig, Path, boolean)} for a process that may take over from another ({@code succession}). */
    public static int run(HeraldConfig config, Path home, boolean demo, Succession succession) {
        return run(config, home, demo, succession, () -> config);
    }

    /** {@link #run(HeraldConfig, Path, boolean, Succession)} whose {@code /reload-mcp} reads the configuration with {@code reread}. */
    public static int run(HeraldConfig config, Path home, boolean demo, Succession succession,
            java.util.function.Supplier<HeraldConfig> reread) {
        Clock clock = Clock.systemUTC();
        long pid = ProcessHandle.current().pid();
        RunFiles files = new RunFiles(home);
        HomePermissions.warnIfOpen(home, config.store());
        // a first run has nothing to recover: no SQLite file yet, or (PostgreSQL) no run of this home ever wrote its state
        boolean firstRun = config.store().path() != null ? !Files.exists(config.store().path()) : !Files.exists(files.stateFile());
        StopRequests stops = new StopRequests();
        OldGenTrim.install(); // the serial heap's old generation is collected, not grown, once it holds mostly garbage
        Wiring wiring;
        try {
            wiring = Wiring.build(config, home, demo, clock, succession.predecessor().orElse(null), b -> b
                    .onRestartRequested(src -> {
                        if (src != null) {
                            files.writeRestartRequest(src);
                        }
                        stops.request(StopKind.RESTART, src != null);
                    })
                    .onCleanStop(files::writeCleanMarker) // written by the drain when the stop cut nothing off
                    // judged dead by another node (paused past its lease): it stopped without writing; exit 75 to rejoin as a new node
                    .onFencedOut(() -> stops.request(StopKind.RESTART, false)), reread);
        } catch (RuntimeException e) {
            return fatal(e);
        }
        try (wiring) {
            Signals.install(stops);
            boolean handover = config.gateway().restartMode() == RestartMode.HANDOVER;
            boolean takingOver = succession.takingOver();
            try {
                wiring.web().ifPresent(web -> {
                    if (handover || takingOver) {
                        web.sharePort(takingOver);
                    }
                    web.start();
                });
            } catch (RuntimeException e) {
                return fatal(e);
            }
            // taking over from a running process is a start after a clean stop: the old one finishes its own turns
            boolean clean = takingOver || files.consumeCleanMarker() || firstRun;
            if (!clean) {
                LOG.warn("runtime - the previous run did not stop cleanly; turns it cut off are recovered from the store");
            }
            boolean autoResume = new CrashLoopBreaker(home.resolve("unclean_starts.log")).allowAutoResume(clean, clock.instant());
            Optional<SessionSource> restartedFrom = files.consumeRestartRequest();
            Gateway gateway = wiring.gateway();
            stops.onHurry(gateway::hurryStop); // a second Ctrl-C or SIGTERM during the drain
            files.writePid(pid, supervisorPid(), clock.instant());
            StatusFile status = new StatusFile(files.stateFile()).of(gateway.membership().id(), succession.predecessor().orElse(null));
            Thread writer = status.startWriter(gateway::status, pid, clock);
            try {
                gateway.start(new Gateway.StartOptions(autoResume, restartedFrom));
            } catch (RuntimeException e) {
                files.removePid(pid);
                return fatal(e);
            }
            wiring.startScheduler(); // several nodes may each run one: a due run is claimed once in the store
            LOG.info(dev.herald.app.runtime.ReadyLine.text(config, wiring.web().map(web -> web.baseUrl()).orElse(null)));
            StopRequests.Request request = stops.await();
            OptionalLong supervisor = supervisorPid();
            while (request.kind() == StopKind.RESTART && handover && supervisor.isPresent()) {
                writer.interrupt(); // the new process writes the status file from now on
                joinQuietly(writer);
                Handover.Outcome outcome = new Handover(home, supervisor.getAsLong()).request(gateway.membership().id(), pid,
                        Duration.ofSeconds(120).plus(config.gateway().startupRestoreDrainTimeout()));
                if (outcome.ready()) {
                    wiring.web().ifPresent(WebServer::stopAccepting); // before draining: new requests reach the new process
                    wiring.stopScheduler(); // the new process fires what falls due from now on
                    gateway.stop(StopKind.HANDOVER, request.fromChat());
                    return RESTART_EXIT; // the pid and status files are the new process's
                }
                LOG.error("runtime - restart by handover failed: {}; this gateway keeps running (fix that, or set "
                        + "gateway.restart_mode: drain and restart again)", outcome.why());
                files.consumeRestartRequest();
                writer = status.startWriter(gateway::status, pid, clock);
                stops.reset();
                request = stops.await();
            }
            wiring.stopScheduler();
            gateway.stop(request.kind(), request.fromChat());
            writer.interrupt();
            status.write(gateway.status(), pid, clock.instant());
            files.removePid(pid);
            return request.kind() == StopKind.RESTART ? RESTART_EXIT : ExitCodes.OK;
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Logs a failure no restart can cure as one line and returns 78; anything else is a crash and is rethrown. */
    private static int fatal(RuntimeException e) {
        Optional<String> line = FatalStart.line(e);
        if (line.isEmpty()) {
            throw e;
        }
        LOG.error("{} (exit 78: not restarted until this is fixed)", line.get());
        return ExitCodes.CONFIG;
    }

    private static OptionalLong supervisorPid() {
        String v = System.getenv(SUPERVISOR_PID_ENV);
        try {
            return v == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
