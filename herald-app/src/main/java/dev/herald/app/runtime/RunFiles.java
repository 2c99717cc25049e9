package dev.herald.app.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The small files a running gateway keeps in its home, each written atomically (temp file, then rename) and
 * readable by its owner only (mode 600):
 *
 * <ul>
 *   <li>{@code gateway.pid}: the gateway process's pid (and its supervisor's), for {@code herald restart}
 *       and {@code herald status}; removed at a graceful stop;</li>
 *   <li>{@code gateway_state.json}: the runtime status (state, turns, platforms), refreshed while running;</li>
 *   <li>{@code .clean_shutdown}: written at a stop that cut nothing off; consumed at the next start, whose
 *       absence means the previous run ended uncleanly;</li>
 *   <li>{@code restart_request.json}: the chat that asked for a /restart, told when the gateway is back.</li>
 * </ul>
 */
public final class RunFiles {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    static final ObjectMapper JSON = new ObjectMapper();

    private final Path home;

    /** The JSON mapper for these files. */
    public static ObjectMapper json() {
        return JSON;
    }

    public RunFiles(Path home) {
        this.home = home;
    }

    public Path pidFile() {
        return home.resolve("gateway.pid");
    }

    public Path stateFile() {
        return home.resolve("gateway_state.json");
    }

    Path cleanMarker() {
        return home.resolve(".clean_shutdown");
    }

    Path restartRequest() {
        return home.resolve("restart_request.json");
    }

    public void writePid(long pid, OptionalLong supervisorPid, Instant startedAt) {
        ObjectNode n = JSON.createObjectNode();
        n.put("pid", pid);
        if (supervisorPid.isPresent()) {
            n.put("supervisor_pid", supervisorPid.getAsLong());
        }
        n.put("started_at", startedAt.toString());
        write(pidFile(), n.toString());
    }

    /** The gateway pid recorded in {@code gateway.pid}, if the file exists and is readable. */
    public OptionalLong readPid() {
        try {
            JsonNode n = JSON.readTree(Files.readString(pidFile()));
            return n.hasNonNull("pid") ? OptionalLong.of(n.get("pid").asLong()) : OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    public void removePid(long pid) {
        if (readPid().orElse(-1) == pid) {
            delete(pidFile());
        }
    }

    /** True when the previous run left the clean-stop marker; the marker is removed either way. */
    public boolean consumeCleanMarker() {
        boolean clean = Files.exists(cleanMarker());
        delete(cleanMarker());
        return clean;
    }

    public void writeCleanMarker(Instant at) {
        write(cleanMarker(), at.toString() + "\n");
    }

    public void writeRestartRequest(SessionSource s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("platform", s.platform().id());
        n.put("chat_id", s.chatId());
        n.put("chat_type", s.chatType().wire());
        n.put("user_id", s.userId());
        n.put("thread_id", s.threadId());
        write(restartRequest(), n.toString());
    }

    /** The chat that asked for the restart that led to this start, once. */
    public Optional<SessionSource> consumeRestartRequest() {
        Path p = restartRequest();
        if (!Files.exists(p)) {
            return Optional.empty();
        }
        try {
            JsonNode n = JSON.readTree(Files.readString(p));
            return Optional.of(new SessionSource(Platform.of(n.get("platform").asText()), n.get("chat_id").asText(),
                    ChatType.fromWire(n.get("chat_type").asText()), text(n, "user_id"), null, text(n, "thread_id"), null));
        } catch (IOException | RuntimeException e) {
            log.warn("runtime - {} is unreadable ({}); no restart confirmation will be sent", p, e.getMessage());
            return Optional.empty();
        } finally {
            delete(p);
        }
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    /** Replaces {@code target} atomically with {@code content}, readable by its owner only. */
    static void write(Path target, String content) {
        try {
            PrivateFiles.write(target, content.getBytes(StandardCharsets.UTF_8));
        } catch (UncheckedIOException e) {
            log.warn("runtime - could not write {}: {}", target, e.getCause().getMessage());
        }
    }

    static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            log.warn("runtime - could not remove {}: {}", p, e.getMessage());
        }
    }
}
