package dev.herald.app;

import dev.herald.app.config.HeraldConfig;
import dev.herald.app.runtime.CrashLoopBreaker;
import dev.herald.app.runtime.RunFiles;
import dev.herald.app.runtime.Signals;
import dev.herald.app.runtime.StatusFile;
import dev.herald.app.runtime.StopRequests;
import dev.herald.app.runtime.Wiring;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.gateway.StopReport;
import dev.herald.core.session.SessionSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway process from start to exit: read what the previous run left (clean-stop marker, restart
 * request, crash-loop record), wire and start the gateway, write the pid and status files, wait for a
 * stop request (signal, /restart), drain, and exit 0 for a shutdown or 75 to be restarted.
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
        Clock clock = Clock.systemUTC();
        long pid = ProcessHandle.current().pid();
        RunFiles files = new RunFiles(home);
        // a first run has nothing to recover: no SQLite file yet, or (PostgreSQL) no run of this home ever wrote its state
        boolean firstRun = config.store().path() != null ? !Files.exists(config.store().path()) : !Files.exists(files.stateFile());
        boolean clean = files.consumeCleanMarker() || firstRun;
        if (!clean) {
            LOG.warn("runtime - the previous run did not stop cleanly; turns it cut off are recovered from the store");
        }
        boolean autoResume = new CrashLoopBreaker(home.resolve("unclean_starts.log")).allowAutoResume(clean, clock.instant());
        Optional<SessionSource> restartedFrom = files.consumeRestartRequest();
        StopRequests stops = new StopRequests();
        try (Wiring wiring = Wiring.build(config, home, demo, clock)) {
            Signals.install(stops);
            Gateway gateway = wiring.gateway();
            gateway.onRestartRequested(src -> {
                if (src != null) {
                    files.writeRestartRequest(src);
                }
                stops.request(StopKind.RESTART, src != null);
            });
            files.writePid(pid, supervisorPid(), clock.instant());
            StatusFile status = new StatusFile(files.stateFile());
            wiring.web().ifPresent(web -> web.start());
            Thread writer = status.startWriter(gateway::status, pid, clock);
            gateway.start(new Gateway.StartOptions(autoResume, restartedFrom));
            LOG.info(dev.herald.app.runtime.ReadyLine.text(config, wiring.web().map(web -> web.baseUrl()).orElse(null)));
            StopRequests.Request request = stops.await();
            StopReport report = gateway.stop(request.kind(), request.fromChat());
            writer.interrupt();
            status.write(gateway.status(), pid, clock.instant());
            if (report.clean()) {
                files.writeCleanMarker(clock.instant());
            }
            files.removePid(pid);
            return request.kind() == StopKind.RESTART ? RESTART_EXIT : ExitCodes.OK;
        }
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
