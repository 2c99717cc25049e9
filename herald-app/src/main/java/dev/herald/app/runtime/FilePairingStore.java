package dev.herald.app.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.auth.PairingState;
import dev.herald.core.auth.PairingStore;
import dev.herald.core.platform.Platform;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * DM pairing state as files: {@code $HERALD_HOME/pairing/<platform>.json}, mode 600, written atomically.
 *
 * <p>Concurrency: the running gateway issues codes while {@code herald pairing approve} runs in another
 * process, so every {@link #update} holds an OS lock on {@code <platform>.lock} (and a lock in this JVM,
 * since OS file locks are per process) around read-modify-write. Reads take no lock: files are replaced
 * by rename, so a reader sees the old or the new file, never half of one.
 *
 * <p>Cache: the gateway reads the approved users on every refused-by-the-rules message; the parsed state
 * is kept until the file's identity or modification time changes, so an approval from another process is
 * seen at the next decision.
 */
public final class FilePairingStore implements PairingStore {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private record Cached(Object fileKey, long modified, long size, PairingState state) {
    }

    private final Path dir;
    private final Map<Platform, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final Map<Platform, Cached> cache = new ConcurrentHashMap<>();

    public FilePairingStore(Path dir) {
        this.dir = dir;
    }

    /** Platforms that have a pairing file, sorted. */
    public List<Platform> platforms() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        TreeSet<Platform> out = new TreeSet<>();
        try (var files = Files.list(dir)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5)).forEach(id -> {
                        try {
                            out.add(Platform.of(id));
                        } catch (IllegalArgumentException ignored) {
                            // not a pairing file
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException("pairing - cannot list " + dir + " (" + e.getMessage() + ")", e);
        }
        return List.copyOf(out);
    }

    @Override
    public PairingState read(Platform platform) {
        Path file = file(platform);
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            Cached c = cache.get(platform);
            if (c != null && Objects.equals(c.fileKey(), a.fileKey()) && c.modified() == a.lastModifiedTime().toMillis()
                    && c.size() == a.size()) {
                return c.state();
            }
            PairingState s = parse(JSON.readTree(file.toFile()));
            cache.put(platform, new Cached(a.fileKey(), a.lastModifiedTime().toMillis(), a.size(), s));
            return s;
        } catch (NoSuchFileException e) {
            return PairingState.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("pairing - " + file + " is unreadable (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public PairingState update(Platform platform, UnaryOperator<PairingState> change) {
        ReentrantLock jvm = locks.computeIfAbsent(platform, p -> new ReentrantLock());
        jvm.lock();
        PrivateFiles.folder(dir);
        try (FileChannel ch = FileChannel.open(dir.resolve(platform.id() + ".lock"),
                java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), PrivateFiles.ownerOnly());
                FileLock ignored = ch.lock()) {
            cache.remove(platform);
            PairingState next = change.apply(read(platform));
            PrivateFiles.write(file(platform), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(tree(next)));
            return next;
        } catch (IOException e) {
            throw new UncheckedIOException("pairing - cannot update " + file(platform) + " (" + e.getMessage() + ")", e);
        } finally {
            jvm.unlock();
        }
    }

    private Path file(Platform platform) {
        return dir.resolve(platform.id() + ".json");
    }

    private static ObjectNode tree(PairingState s) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode pending = root.putArray("pending");
        for (PairingState.Pending p : s.pending()) {
            pending.addObject().put("code", p.code()).put("user_id", p.userId()).put("user_name", p.userName())
                    .put("chat_id", p.chatId()).put("issued_at", p.issuedAt().toString());
        }
        ArrayNode approved = root.putArray("approved");
        for (PairingState.Approved a : s.approved()) {
            approved.addObject().put("user_id", a.userId()).put("user_name", a.userName()).put("approved_at", a.approvedAt().toString());
        }
        ObjectNode requests = root.putObject("last_request");
        s.lastRequest().forEach((user, at) -> requests.put(user, at.toString()));
        root.put("failed_attempts", s.failedAttempts());
        root.put("locked_until", s.lockedUntil() == null ? null : s.lockedUntil().toString());
        return root;
    }

    private static PairingState parse(JsonNode root) {
        List<PairingState.Pending> pending = new ArrayList<>();
        for (JsonNode p : root.path("pending")) {
            pending.add(new PairingState.Pending(p.path("code").asText(), p.path("user_id").asText(), text(p, "user_name"),
                    text(p, "chat_id"), Instant.parse(p.path("issued_at").asText())));
        }
        List<PairingState.Approved> approved = new ArrayList<>();
        for (JsonNode a : root.path("approved")) {
            approved.add(new PairingState.Approved(a.path("user_id").asText(), text(a, "user_name"),
                    Instant.parse(a.path("approved_at").asText())));
        }
        Map<String, Instant> requests = new HashMap<>();
        root.path("last_request").properties().forEach(e -> requests.put(e.getKey(), Instant.parse(e.getValue().asText())));
        String locked = text(root, "locked_until");
        return new PairingState(pending, approved, requests, root.path("failed_attempts").asInt(0),
                locked == null ? null : Instant.parse(locked));
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }
}
