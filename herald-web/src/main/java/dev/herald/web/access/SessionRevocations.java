package dev.herald.web.access;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session tokens that were logged out before they expired. Tokens are signed and carry their expiry (no
 * session table), so a logout can only end one by remembering it here until it would have expired anyway.
 * With a file the list survives a restart (a copied cookie must not come back to life when Herald
 * restarts); the file holds one {@code <expiry epoch second> <token nonce>} per line, is written whole
 * (temporary file, then rename) with mode 600, and drops expired entries on every write. The nonce alone
 * opens nothing: a token also needs its signature.
 */
public final class SessionRevocations {
    private static final Logger log = LoggerFactory.getLogger("web");
    /** More live revocations than this are not kept (the oldest expiry goes first): a bound on memory and file size. */
    static final int MAX_ENTRIES = 100_000;

    private final Path file;
    private final Map<String, Long> revoked = new ConcurrentHashMap<>();

    private SessionRevocations(Path file) {
        this.file = file;
    }

    /** Revocations kept in memory only (lost at restart): for tests and embedded use. */
    public static SessionRevocations inMemory() {
        return new SessionRevocations(null);
    }

    /** Revocations kept in {@code file} (created on the first logout), read now. An unreadable file is logged and treated as empty. */
    public static SessionRevocations persistedIn(Path file) {
        SessionRevocations r = new SessionRevocations(file);
        if (Files.exists(file)) {
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                    String[] parts = line.strip().split(" ");
                    if (parts.length == 2 && parts[0].chars().allMatch(Character::isDigit) && !parts[1].isEmpty() && parts[0].length() < 19) {
                        r.revoked.put(parts[1], Long.parseLong(parts[0]));
                    }
                }
            } catch (IOException e) {
                log.warn("web - cannot read the logged-out sessions in {} ({}); sessions logged out before this start stay valid "
                        + "until they expire (at most 7 days) unless the key is changed", file, e.toString());
            }
        }
        return r;
    }

    boolean isRevoked(String nonce) {
        return revoked.containsKey(nonce);
    }

    /** Remembers {@code nonce} until {@code expiresAt} (epoch seconds); drops entries expired at {@code now}. */
    synchronized void revoke(String nonce, long expiresAt, long now) {
        revoked.values().removeIf(e -> e <= now);
        revoked.put(nonce, expiresAt);
        while (revoked.size() > MAX_ENTRIES) {
            revoked.entrySet().stream().min(Map.Entry.comparingByValue()).ifPresent(e -> revoked.remove(e.getKey()));
        }
        if (file != null) {
            write();
        }
    }

    private void write() {
        List<String> lines = new ArrayList<>(revoked.size());
        revoked.forEach((nonce, expires) -> lines.add(expires + " " + nonce));
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try {
                trySetOwnerOnly(tmp);
                Files.write(tmp, lines, StandardCharsets.US_ASCII);
                try {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            log.warn("web - cannot save the logged-out sessions to {} ({}); the logout holds until Herald restarts", file, e.toString());
        }
    }

    private static void trySetOwnerOnly(Path p) throws IOException {
        try {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the home's ACL applies
        }
    }
}
