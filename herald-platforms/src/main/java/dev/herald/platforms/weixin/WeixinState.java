package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.PlatformState;
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
 *
 * <p>With a store ({@link PlatformState}), the state lives there instead, so every node of a cluster uses it: the node
 * that polls writes each new context token at once and the cursor after each accepted batch; a node that only sends
 * (standing by) reads a chat's token from the store. A {@code state.json} left by an earlier version is imported into
 * an empty store once.
 */
final class WeixinState {
    private static final Logger log = LoggerFactory.getLogger(WeixinState.class);
    private static final int MAX_CHATS = 10_000;

    static final String CURSOR = "cursor";
    static final String TOKEN = "context_token:";
    static final String MEDIA = "media:";
    static final String MEDIA_NEXT = "media_next";
    /** How many received media stay fetchable: slots reused in turn, so the store never grows past them. */
    static final int MEDIA_SLOTS = 1_000;

    private final Path file;
    private final PlatformState store;
    private volatile String cursor = "";
    private final Map<String, String> media = new java.util.concurrent.ConcurrentHashMap<>();
    private int mediaNext = -1;
    private final Map<String, String> contextTokens = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_CHATS;
        }
    };

    WeixinState(Path file) {
        this.file = file;
        this.store = null;
        load();
    }

    /** State kept in {@code store}; {@code legacyFile} (may be null) is imported when the store has none yet. */
    WeixinState(PlatformState store, Path legacyFile) {
        this.file = legacyFile;
        this.store = store;
        Map<String, String> stored = store.all(WeixinAdapter.PLATFORM);
        if (stored.isEmpty() && legacyFile != null && Files.exists(legacyFile)) {
            load();
            Map<String, String> imported = new LinkedHashMap<>();
            imported.put(CURSOR, cursor);
            synchronized (this) {
                contextTokens.forEach((chat, token) -> imported.put(TOKEN + chat, token));
                contextTokens.clear();
            }
            store.put(WeixinAdapter.PLATFORM, imported);
            log.info("weixin - state imported from {} into the store ({} chat token(s)); the file is no longer read", legacyFile,
                    imported.size() - 1);
        } else {
            cursor = stored.getOrDefault(CURSOR, "");
        }
    }

    /** Where the next poll continues: the store's cursor (another node may have polled since), else this node's. */
    String cursor() {
        if (store != null) {
            cursor = store.get(WeixinAdapter.PLATFORM, CURSOR).orElse(cursor);
        }
        return cursor;
    }

    /** The chat's latest context token: one this node saw, else (with a store) the one another node saw. */
    String contextToken(String chatId) {
        synchronized (this) {
            String seen = contextTokens.get(chatId);
            if (seen != null || store == null) {
                return seen;
            }
        }
        return store.get(WeixinAdapter.PLATFORM, TOKEN + chatId).orElse(null);
    }

    void rememberToken(String chatId, String token) {
        if (token == null) {
            return;
        }
        String before;
        synchronized (this) {
            before = contextTokens.put(chatId, token);
        }
        if (store != null && !token.equals(before)) {
            store.put(WeixinAdapter.PLATFORM, Map.of(TOKEN + chatId, token)); // every node replies with the latest one
        }
    }

    /**
     * Keeps what fetching a received file again needs ({@code record}, JSON naming its CDN parameter and key) in the next of
     * {@link #MEDIA_SLOTS} slots, in the store when there is one (every node can fetch it), else in memory; returns the slot.
     */
    synchronized int rememberMedia(String record) {
        if (mediaNext < 0) {
            mediaNext = store == null ? 0 : store.get(WeixinAdapter.PLATFORM, MEDIA_NEXT).map(WeixinState::slot).orElse(0);
        }
        int slot = mediaNext;
        mediaNext = (slot + 1) % MEDIA_SLOTS;
        if (store != null) {
            store.put(WeixinAdapter.PLATFORM, Map.of(MEDIA + slot, record, MEDIA_NEXT, Integer.toString(mediaNext)));
        } else {
            media.put(MEDIA + slot, record);
        }
        return slot;
    }

    /** The record in media slot {@code slot}, or null. */
    String media(int slot) {
        if (store != null) {
            return store.get(WeixinAdapter.PLATFORM, MEDIA + slot).orElse(null);
        }
        return media.get(MEDIA + slot);
    }

    private static int slot(String s) {
        try {
            int n = Integer.parseInt(s);
            return n >= 0 && n < MEDIA_SLOTS ? n : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Moves the cursor past an accepted batch and writes it (to the store, or everything to disk). */
    void acknowledge(String nextCursor) throws IOException {
        cursor = nextCursor == null ? "" : nextCursor;
        if (store != null) {
            store.put(WeixinAdapter.PLATFORM, Map.of(CURSOR, cursor));
            return;
        }
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
