package dev.herald.app.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The old process's side of a restart that hands over: it asks its supervisor for a new process (its node id and pid
 * in {@code handover_request.json}, then SIGUSR2) and waits until that process runs on the same home, which its status
 * file says ({@code successor_of} names this node, state running). Only then does the old process drain; if the new one
 * exits or does not come up in time, the old one keeps serving.
 */
public final class Handover {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    private static final Duration POLL = Duration.ofMillis(50);

    /** How the request ended: the new process runs ({@code successorPid}), or why not. */
    public record Outcome(boolean ready, long successorPid, String why) {
    }

    private final Path home;
    private final long supervisorPid;

    public Handover(Path home, long supervisorPid) {
        this.home = home;
        this.supervisorPid = supervisorPid;
    }

    /** Asks for the new process and waits for it at most {@code max}. */
    public Outcome request(String node, long pid, Duration max) {
        long t0 = System.nanoTime();
        Path state = home.resolve(Supervisor.HANDOVER_STATE);
        try {
            Files.deleteIfExists(state);
        } catch (IOException e) {
            log.debug("runtime - {} could not be removed: {}", state, e.toString());
        }
        RunFiles.write(home.resolve(Supervisor.HANDOVER_REQUEST), RunFiles.json().createObjectNode().put("node", node).put("pid", pid)
                .put("requested_at", Instant.now().toString()).toPrettyString());
        try {
            int rc = new ProcessBuilder("kill", "-USR2", Long.toString(supervisorPid)).inheritIO().start().waitFor();
            if (rc != 0) {
                return new Outcome(false, 0, "the supervisor (pid " + supervisorPid + ") could not be asked (kill exited " + rc + ")");
            }
        } catch (IOException e) {
            return new Outcome(false, 0, "the supervisor could not be asked (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(false, 0, "interrupted");
        }
        log.info("runtime - restart by handover: asked the supervisor for a new process; this one serves until it runs");
        StatusFile status = new StatusFile(home.resolve("gateway_state.json"));
        long successor = 0;
        while (System.nanoTime() - t0 < max.toNanos()) {
            if (successor == 0) {
                successor = read(state).filter(n -> n.path("from_pid").asLong() == pid).map(n -> n.path("successor_pid").asLong()).orElse(0L);
            }
            Optional<JsonNode> s = status.read();
            if (successor != 0 && s.isPresent() && node.equals(s.get().path("successor_of").asText(null))
                    && "running".equals(s.get().path("state").asText()) && s.get().path("pid").asLong() == successor) {
                log.info("runtime - the new process {} runs (after {} ms); handing over", successor, (System.nanoTime() - t0) / 1_000_000);
                return new Outcome(true, successor, null);
            }
            if (successor != 0 && !ProcessHandle.of(successor).map(ProcessHandle::isAlive).orElse(false)) {
                return new Outcome(false, successor, "the new process " + successor + " exited before it ran (see its log lines above)");
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Outcome(false, successor, "interrupted");
            }
        }
        return new Outcome(false, successor, "the new process did not run within " + max.toSeconds() + " s");
    }

    private static Optional<JsonNode> read(Path file) {
        try {
            return Optional.of(RunFiles.json().readTree(Files.readString(file)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
