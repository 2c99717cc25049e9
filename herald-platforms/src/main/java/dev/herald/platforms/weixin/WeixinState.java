package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Weixin adapter must remember across restarts: the getupdates cursor (so a restart continues
 * where the last acknowledged batch ended) and the latest context token per chat (replies, including
 * replies of turns resumed after a restart, must echo it). Kept in one JSON file written atomically
 * (temporary file, then rename) with mode 600, since context tokens let anyone reply into a chat.
 *
 * <p>One writer: the poller saves after a batch was accepted; sends only read.
 */
final class WeixinState {
    private static final Logger log = LoggerFactory.getLogger(WeixinState.class);
    private static final int MAX_CHATS = 10_000;

    private final Path file;
    private volatile String cursor = "";
    private final Map<String, String> contextTokens = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_CHATS;
        }
    };

    WeixinState(Path file) {
        this.file = file;
        load();
    }

    String cursor() {
        return cursor;
    }

    synchronized String contextToken(String chatId) {
        return contextTokens.get(chatId);
    }

    synchronized void rememberToken(String chatId, String token) {
        if (token != null) {
            contextTokens.put(chatId, token);
        }
    }

    /** Moves the cursor past an accepted batch and writes everything to disk. */
    void acknowledge(String nextCursor) throws IOException {
        cursor = nextCursor == null ? "" : nextCursor;
        if (file == null) {
            return;
        }
        ObjectNode root = JsonHttp.JSON.createObjectNode();
        root.put("cursor", cursor);
        ObjectNode tokens = root.putObject("context_tokens");
        synchronized (this) {
            contextTokens.forEach(tokens::put);
        }
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir) && posix) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Files.createDirectories(dir);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (posix) { // created private, so the tokens are never readable by others, not even for a moment
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.write(tmp, JsonHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void load() {
        if (file == null || !Files.exists(file)) {
            return;
        }
        try {
            JsonNode root = JsonHttp.JSON.readTree(file.toFile());
            cursor = root.path("cursor").asText("");
            Map<String, String> tokens = new LinkedHashMap<>();
            root.path("context_tokens").properties().forEach(e -> tokens.put(e.getKey(), e.getValue().asText()));
            synchronized (this) {
                contextTokens.putAll(tokens);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("weixin - state file {} unreadable ({}); starting from an empty cursor", file, e.getClass().getSimpleName());
        }
    }
}
