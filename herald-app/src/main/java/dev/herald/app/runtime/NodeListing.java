package dev.herald.app.runtime;

import dev.herald.store.StoreConfig;
import dev.herald.core.cluster.NodeRecord;
import dev.herald.core.session.Storage;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The nodes registered on a store, as {@code herald status} prints them: every live node (running or draining) and the
 * few that left last, each with what it owns and how fresh its lease is (by the database's clock).
 */
public final class NodeListing {
    private NodeListing() {
    }

    /** The lines for the store of {@code config}, or one line saying why it could not be read; none when no store exists yet. */
    public static List<String> of(StoreConfig config) {
        if (!config.postgres() && (config.path() == null || !Files.exists(config.path()))) {
            return List.of();
        }
        try (Storage storage = Stores.open(config, Clock.systemUTC())) {
            return lines(storage.nodes().list(3), storage.nodes().now());
        } catch (RuntimeException e) {
            return List.of("nodes: the store could not be read (" + e.getMessage() + ")");
        }
    }

    static List<String> lines(List<NodeRecord> nodes, Instant now) {
        List<String> out = new ArrayList<>();
        long live = nodes.stream().filter(n -> n.state().live()).count();
        out.add("nodes: " + live + " live" + (nodes.size() > live ? ", " + (nodes.size() - live) + " gone recently" : ""));
        for (NodeRecord n : nodes) {
            StringBuilder sb = new StringBuilder("  ").append(n.id()).append(": ").append(n.state().code()).append(", ").append(n.describe());
            if (n.state().live()) {
                sb.append(", ").append(n.sessions()).append(n.sessions() == 1 ? " session, " : " sessions, ")
                        .append(n.runningTurns()).append(n.runningTurns() == 1 ? " turn running" : " turns running");
                if (n.heartbeatAt() != null) {
                    sb.append(", heartbeat ").append(ago(Duration.between(n.heartbeatAt(), now)));
                }
                if (n.expiresAt() != null && n.expiresAt().isBefore(now)) {
                    sb.append(" (lease ran out ").append(ago(Duration.between(n.expiresAt(), now))).append(")");
                }
            }
            if (n.successorOf() != null) {
                sb.append("; took over from ").append(n.successorOf());
            }
            out.add(sb.toString());
        }
        return out;
    }

    private static String ago(Duration d) {
        long ms = Math.max(0, d.toMillis());
        return ms < 120_000 ? (ms / 1000) + " s ago" : (ms / 60_000) + " min ago";
    }
}
