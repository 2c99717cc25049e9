package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.store.StoreOwner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's claim on a SQLite database: an exclusive OS lock ({@link FileChannel#tryLock()}) on
 * {@code <database>-lock} next to the database file, held until {@link #close()} or the process ends. Nodes of a cluster
 * (several processes on this host, {@code cluster.enabled}) take a shared lock instead: they exclude a gateway that runs
 * without clustering, and it excludes them.
 *
 * <p>The lock file says who holds it ({@code pid 4242 on host1 since 2026-12-03T10:00:00Z}), written after the
 * lock is taken, so a refused gateway can name the running one. The file is never deleted: removing it while
 * another process waits to open it would let two processes lock two different files of the same name. The OS
 * releases the lock when the process dies (kill -9 included), so no stale claim survives a crash. Being a
 * separate file, it never interferes with SQLite's own locks on the database.
 */
public final class SqliteOwner implements StoreOwner {
    private static final Logger log = LoggerFactory.getLogger(SqliteOwner.class);
    static final String SUFFIX = "-lock";

    private final Path lockFile;
    private final FileChannel channel;
    private final FileLock lock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SqliteOwner(Path lockFile, FileChannel channel, FileLock lock) {
        this.lockFile = lockFile;
        this.channel = channel;
        this.lock = lock;
    }

    /** The lock file of the database {@code dbFile}: {@code herald.db} -> {@code herald.db-lock}. */
    public static Path lockFileOf(Path dbFile) {
        Path file = dbFile.toAbsolutePath().normalize();
        return file.resolveSibling(file.getFileName() + SUFFIX);
    }

    /**
     * Claims the database {@code dbFile} (which need not exist yet) for the gateway of this process, creating
     * its folder (mode 700) and the lock file (mode 600) when missing.
     *
     * @throws StoreException naming the database and the holder when another gateway holds it, or when the
     *                        lock file cannot be created
     */
    public static SqliteOwner claim(Path dbFile) {
        return claim(dbFile, false);
    }

    /** {@link #claim(Path)}; {@code shared} for a node of a cluster (refused while a gateway without clustering holds it). */
    public static SqliteOwner claim(Path dbFile, boolean shared) {
        Path db = dbFile.toAbsolutePath().normalize();
        Path lockFile = lockFileOf(db);
        FileChannel channel = null;
        try {
            OwnerOnly.folder(lockFile.getParent());
            channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    OwnerOnly.attributes(OwnerOnly.FILE));
            FileLock lock = tryLock(channel, shared);
            if (lock == null) {
                String holder = holder(lockFile);
                channel.close();
                throw shared ? StoreException.inUseAlone(db.toString(), holder) : StoreException.inUse(db.toString(), holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(identity().getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            log.info("store - {} claimed for this gateway ({})", db, lockFile.getFileName());
            return new SqliteOwner(lockFile, channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw StoreException.unavailable("the lock file " + lockFile + " could not be created or locked; check the permissions of "
                    + lockFile.getParent(), e, false);
        }
    }

    private static FileLock tryLock(FileChannel channel, boolean shared) throws IOException {
        try {
            return channel.tryLock(0L, Long.MAX_VALUE, shared);
        } catch (OverlappingFileLockException heldInThisJvm) {
            return null;
        }
    }

    /** This process as the lock file names it. */
    private static String identity() {
        return StoreOwner.thisProcess() + " since " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\n";
    }

    /**
     * Who holds the lock, from the lock file's first line. A holder writes its line just after locking, so an
     * empty file is read again briefly before giving up.
     */
    static String holder(Path lockFile) {
        for (int attempt = 0; attempt < 10; attempt++) {
            try {
                String line = Files.readString(lockFile, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
                if (!line.isEmpty()) {
                    return line.replaceAll("[^\\p{Print}]", "?").substring(0, Math.min(line.length(), 200));
                }
                Thread.sleep(20);
            } catch (IOException e) {
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return "pid unknown; see " + lockFile;
    }

    @Override
    public String describe() {
        return lockFile.toString();
    }

    /** The lock file. */
    public Path lockFile() {
        return lockFile;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            lock.release();
        } catch (IOException e) {
            log.warn("store - releasing {} failed ({}); the lock ends with the process", lockFile, e.getMessage());
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("store - closing a lock file failed: {}", e.getMessage());
        }
    }
}
