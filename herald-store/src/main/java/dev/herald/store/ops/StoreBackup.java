package dev.herald.store.ops;

import dev.herald.core.session.StoreException;
import dev.herald.store.postgres.JdbcUrl;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Backups of a store. A SQLite store is copied with {@code VACUUM INTO} on a read-only connection: one read
 * transaction, so the copy is a consistent snapshot even while a gateway keeps writing (in WAL mode the reader
 * never blocks the writer), and a compact, ordinary database file that Herald opens as it is. The copy is
 * written beside the target as {@code .partial}, checked ({@code PRAGMA quick_check}), flushed to disk, made
 * readable by its owner only, then renamed into place: an interrupted backup never leaves a file that looks
 * complete. A PostgreSQL store is PostgreSQL's to back up: {@link #pgDumpCommand} says how.
 */
public final class StoreBackup {
    /** What a backup wrote. */
    public record Result(Path file, long bytes, int schemaVersion, long sessions, long messages, long millis) {
    }

    private StoreBackup() {
    }

    /**
     * Snapshots the SQLite database {@code source} into the new file {@code target}.
     *
     * @throws StoreException when the source cannot be read or the copy fails its check; nothing is left at {@code target}
     * @throws IllegalArgumentException when {@code target} exists already (a backup never overwrites)
     */
    public static Result sqlite(Path source, Path target) {
        long started = System.nanoTime();
        Path file = target.toAbsolutePath().normalize();
        if (Files.exists(file)) {
            throw new IllegalArgumentException("backup - " + file + " exists already; name a new file (a backup never overwrites one)");
        }
        if (file.equals(source.toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("backup - the backup file cannot be the database itself");
        }
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(partial);
            try (PlainConn c = SqliteFiles.readOnly(source)) {
                c.update("VACUUM INTO ?", partial.toString());
            }
            Result checked = check(partial, file, started);
            restrictToOwner(partial);
            try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            try {
                Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, file);
            }
            return checked;
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException("backup - " + file + " appeared while the backup ran; nothing was overwritten", e);
        } catch (IOException | SQLException e) {
            throw StoreException.unavailable("backup of " + source + " into " + file + " failed", e, false);
        } finally {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // best effort: only a failed backup leaves a .partial behind, and its name says so
            }
        }
    }

    private static Result check(Path copy, Path finalName, long started) throws SQLException, IOException {
        try (PlainConn c = SqliteFiles.readOnly(copy)) {
            String ok = c.one("PRAGMA quick_check", rs -> rs.getString(1)).orElse("no answer");
            if (!"ok".equals(ok)) {
                throw StoreException.unavailable("the backup copy failed its check (" + ok + ")", null, false);
            }
            int schema = (int) c.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_version");
            long sessions = c.scalar("SELECT COUNT(*) FROM sessions");
            long messages = c.scalar("SELECT COUNT(*) FROM messages");
            return new Result(finalName, Files.size(copy), schema, sessions, messages, (System.nanoTime() - started) / 1_000_000);
        }
    }

    private static void restrictToOwner(Path p) throws IOException {
        if (p.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        }
    }

    /**
     * The {@code pg_dump} command that backs up the PostgreSQL database of {@code url} into {@code target}
     * (custom format, for {@code pg_restore}). The password is not in it: pg_dump reads {@code PGPASSWORD}
     * or {@code ~/.pgpass}.
     */
    public static String pgDumpCommand(String url, String user, Path target) {
        String where = JdbcUrl.describe(url).substring("postgresql ".length()); // host:port/database
        int slash = where.indexOf('/');
        String hostPort = where.substring(0, slash);
        String database = where.substring(slash + 1);
        String host = hostPort;
        String port = "5432";
        int colon = hostPort.lastIndexOf(':');
        if (colon > 0 && !hostPort.endsWith("]")) {
            host = hostPort.substring(0, colon);
            port = hostPort.substring(colon + 1);
        }
        StringBuilder cmd = new StringBuilder("pg_dump --format=custom --file=").append(quote(target.toString()))
                .append(" --host=").append(quote(host.replace("[", "").replace("]", ""))).append(" --port=").append(port);
        if (user != null && !user.isBlank()) {
            cmd.append(" --username=").append(quote(user));
        }
        if (!database.startsWith("(")) {
            cmd.append(" --dbname=").append(quote(database));
        }
        return cmd.toString();
    }

    private static String quote(String s) {
        return s.matches("[A-Za-z0-9_./:@=+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    /** Size as people read it: {@code 12.3 MB}. */
    public static String size(long bytes) {
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MB", bytes / (1024.0 * 1024));
    }
}
