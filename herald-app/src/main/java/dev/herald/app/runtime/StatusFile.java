package dev.herald.app.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.inbound.GatewayStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code gateway_state.json}: the runtime status other commands read ({@code herald status}, the
 * restart command's wait). A {@code StatusWriter} refreshes it every second while the gateway runs.
 */
public final class StatusFile {
    private final Path file;
    private final String node;
    private final String successorOf;

    public StatusFile(Path file) {
        this(file, null, null);
    }

    private StatusFile(Path file, String node, String successorOf) {
        this.file = file;
        this.node = node;
        this.successorOf = successorOf;
    }

    /** This file as the gateway of node {@code node} writes it; {@code successorOf} names the node it took over from, or null. */
    public StatusFile of(String node, String successorOf) {
        return new StatusFile(file, node, successorOf);
    }

    public void write(GatewayStatus s, long pid, Instant now) {
        ObjectNode n = RunFiles.JSON.createObjectNode();
        n.put("state", s.state().name().toLowerCase(java.util.Locale.ROOT));
        n.put("pid", pid);
        if (node != null) {
            n.put("node", node);
        }
        if (successorOf != null) {
            n.put("successor_of", successorOf);
        }
        n.put("started_at", s.startedAt() == null ? null : s.startedAt().toString());
        n.put("updated_at", now.toString());
        n.put("active_turns", s.activeTurns());
        n.put("waiting_turns", s.waitingTurns());
        n.put("restoring", s.restoring());
        n.put("auto_resume", s.autoResume());
        n.put("agent", s.agent());
        ObjectNode platforms = n.putObject("platforms");
        s.platforms().forEach((p, c) -> platforms.putObject(p.id())
                .put("state", c.state().name().toLowerCase(java.util.Locale.ROOT)).put("detail", c.detail()));
        RunFiles.write(file, n.toPrettyString());
    }

    public Optional<JsonNode> read() {
        try {
            return Optional.of(RunFiles.JSON.readTree(Files.readString(file)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Refreshes the file every second until stopped. */
    public Thread startWriter(java.util.function.Supplier<GatewayStatus> status, long pid, java.time.Clock clock) {
        return Thread.ofVirtual().name("status-writer").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                write(status.get(), pid, clock.instant());
                try {
                    Thread.sleep(Duration.ofSeconds(1));
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }
}
