package dev.herald.store.sqlite;

import dev.herald.core.schedule.ScheduleStore;
import dev.herald.core.session.SessionStore;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.Storage;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptStore;
import dev.herald.core.turn.TurnStore;
import dev.herald.store.jdbc.JdbcChatPreferences;
import dev.herald.store.jdbc.JdbcModelChoices;
import dev.herald.store.jdbc.JdbcNodeStore;
import dev.herald.store.jdbc.JdbcScheduleStore;
import dev.herald.store.jdbc.Dialect;
import dev.herald.store.jdbc.JdbcSessionStore;
import dev.herald.store.jdbc.HistoryCache;
import dev.herald.store.jdbc.JdbcTranscriptStore;
import dev.herald.store.jdbc.JdbcTurnStore;
import dev.herald.store.jdbc.StoreOutage;
import dev.herald.store.jdbc.Transactions;
import dev.herald.store.jdbc.Work;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * Herald's embedded store: the session index, transcripts and turns in one SQLite file.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>One writer.</b> Every write runs on one platform thread, {@code herald-store-writer}, that owns
 *       the only write connection ({@link SqliteWriter}). SQLite allows one writer at a time anyway, and
 *       its JNI calls pin a virtual thread to its carrier for the whole call, fsync included; keeping
 *       writes on a platform thread leaves the carriers to the turns. Callers block on the result.
 *       Because all writes are serial, a method's read-check-write (dense {@code seq}, compare-and-set
 *       on a turn's state, following the compression tip) is atomic without further locking.</li>
 *   <li><b>Group commit.</b> Writes queued at the same moment share one transaction (one fsync), each in
 *       its own savepoint: a failing write is rolled back alone and its neighbours still commit. A
 *       caller gets its result only after the COMMIT, so "returned" means "on disk".</li>
 *   <li><b>Readers.</b> A small pool of query-only connections ({@link ReadPool}); in WAL mode they never
 *       wait for the writer and see every committed write. Reads run on the caller's thread; they pin
 *       a virtual thread only for the microseconds of a query (no fsync on the read path).</li>
 *   <li><b>Durability.</b> WAL journal with {@code synchronous=FULL} by default: a committed write survives
 *       a process crash and a power cut. {@code NORMAL} ({@link SqliteOptions}) keeps crash safety but a
 *       power cut may lose the last commits. Foreign keys are on; a busy timeout covers other
 *       processes (backups, the CLI) holding locks. WAL frames are copied back into the database by a
 *       background {@link Checkpointer}, so a commit costs one WAL append and (FULL) one fsync, never a
 *       checkpoint.</li>
 *   <li><b>Scale.</b> Every operation touches a handful of rows through an index (lanes by key, resume
 *       marks and stuck-loop counters through partial indexes, rows by (session, seq)); nothing loads
 *       or rewrites the whole index, and opening does no scan, so start-up does not grow with size.</li>
 *   <li><b>Bad rows.</b> A row that cannot be decoded raises {@code StoreException.corruptRow} naming its
 *       key on single-key calls and is logged and skipped by listings; it is never overwritten.</li>
 *   <li><b>Time.</b> Epoch microseconds in INTEGER columns; instants handed back are truncated to
 *       microseconds so they equal what a later read returns.</li>
 * </ul>
 */
public final class SqliteStorage implements Storage {
    private static final Logger log = LoggerFactory.getLogger(SqliteStorage.class);
    /**
     * SQLite's own page caches, outside the Java heap: the writer's holds the pages its inserts touch, the readers' what
     * the history cache misses (the file's pages stay in the OS's cache anyway). Filled as the file grows, they were most
     * of the gateway's native growth over 100,000 turns at 32 + 4 x 16 MiB; 8 + 4 x 4 MiB bounds them at 24 MiB.
     */
    private static final int WRITER_CACHE_KIB = 8 * 1024;
    private static final int READER_CACHE_KIB = 4 * 1024;
    private static final Duration CHECKPOINT_EVERY = Duration.ofMillis(200);

    private final Path file;
    private final SqliteOptions options;
    private final SqliteWriter writer;
    private final ReadPool readers;
    private final Checkpointer checkpointer;
    private final StoreOutage outage;
    /** One writer: no row locks, and no writer ever loses a race to create a row. */
    static final Dialect DIALECT = new Dialect("sqlite", "", "", "", "rowid",
            why -> new IllegalStateException("store - " + why + ", which the single writer rules out"), "", "");

    private final JdbcSessionStore<SqlConn> sessions;
    private final JdbcTranscriptStore<SqlConn> transcripts;
    private final JdbcTurnStore<SqlConn> turns;
    private final JdbcModelChoices<SqlConn> modelChoices;
    private final JdbcChatPreferences<SqlConn> chatPreferences;
    private final dev.herald.store.jdbc.JdbcAccounts<SqlConn> accounts;
    private final dev.herald.store.jdbc.JdbcMemories<SqlConn> memories;
    private final dev.herald.store.jdbc.JdbcIdentityLinks<SqlConn> identityLinks;
    private final JdbcNodeStore<SqlConn> nodes;
    private final dev.herald.store.jdbc.JdbcPlatformState<SqlConn> platformState;
    private final JdbcScheduleStore<SqlConn> schedules;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SqliteStorage(Path file, SqliteOptions options, SqliteWriter writer, ReadPool readers, Checkpointer checkpointer,
            StoreOutage outage, Clock clock) {
        this.file = file;
        this.outage = outage;
        this.options = options;
        this.writer = writer;
        this.readers = readers;
        this.checkpointer = checkpointer;
        Transactions<SqlConn> tx = new Calls(writer, readers);
        HistoryCache histories = new HistoryCache();
        this.sessions = new JdbcSessionStore<>(tx, DIALECT, clock, histories);
        this.transcripts = new JdbcTranscriptStore<>(tx, DIALECT, histories);
        this.turns = new JdbcTurnStore<>(tx, DIALECT, clock, histories);
        this.modelChoices = new JdbcModelChoices<>(tx, clock);
        this.chatPreferences = new JdbcChatPreferences<>(tx, clock);
        this.accounts = new dev.herald.store.jdbc.JdbcAccounts<>(tx, clock);
        this.memories = new dev.herald.store.jdbc.JdbcMemories<>(tx);
        this.identityLinks = new dev.herald.store.jdbc.JdbcIdentityLinks<>(tx);
        this.nodes = new JdbcNodeStore<>(tx, DIALECT, clock);
        this.platformState = new dev.herald.store.jdbc.JdbcPlatformState<>(tx, clock);
        this.schedules = new JdbcScheduleStore<>(tx);
    }

    /** Writes go to the one writer, reads to the pool of readers. */
    private record Calls(SqliteWriter writer, ReadPool readers) implements Transactions<SqlConn> {
        @Override
        public <T> T write(String subject, Work<SqlConn, T> work) {
            return writer.write(subject, work);
        }

        @Override
        public <T> void writeSoon(String subject, Work<SqlConn, T> work, java.util.function.Consumer<T> onCommit) {
            writer.writeSoon(subject, work, onCommit);
        }

        @Override
        public <T> T read(String subject, Work<SqlConn, T> work) {
            writer.commitDeferredOfThisThread();
            return readers.read(subject, work);
        }
    }

    /** Opens (creating the directories and the file when absent) with {@link SqliteOptions#defaults()}. */
    public static SqliteStorage open(Path dbFile, Clock clock) {
        return open(dbFile, clock, SqliteOptions.defaults());
    }

    /**
     * Opens the database, creating its directories and file when absent, and migrates its schema.
     *
     * @throws StoreException when the file cannot be opened as a database or was written by a newer Herald
     */
    public static SqliteStorage open(Path dbFile, Clock clock, SqliteOptions options) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(options, "options");
        Path file = dbFile.toAbsolutePath().normalize();
        long started = System.nanoTime();
        createPrivately(file);
        SqlConn writeConn = null;
        List<SqlConn> readConns = new ArrayList<>();
        SqlConn checkpointConn = null;
        try {
            writeConn = connect(file, options, Role.WRITER);
            int before = Migrations.apply(writeConn, file, clock);
            for (int i = 0; i < options.readConnections(); i++) {
                readConns.add(connect(file, options, Role.READER));
            }
            checkpointConn = connect(file, options, Role.CHECKPOINTER);
            OwnerOnly.sideFilesLike(file);
            StoreOutage outage = new StoreOutage(file.toString(), options.outageWait());
            SqliteStorage storage = new SqliteStorage(file, options, new SqliteWriter(writeConn, () -> connect(file, options, Role.WRITER),
                    file, options.maxBatch(), options.busyTimeout(), SqliteWriter.WAL_RESTART_BYTES, outage),
                    new ReadPool(file, readConns, options.busyTimeout()),
                    new Checkpointer(checkpointConn, file, CHECKPOINT_EVERY, new FreeSpace(file, options.lowSpaceBytes(), outage)), outage,
                    clock);
            log.info("store - opened {} (schema v{}{}, WAL, synchronous {}, {} readers) in {} ms", file, Migrations.latest(),
                    before == Migrations.latest() ? "" : ", migrated from v" + before, options.synchronous(),
                    options.readConnections(), (System.nanoTime() - started) / 1_000_000);
            return storage;
        } catch (SQLException | IOException | RuntimeException e) {
            closeQuietly(writeConn);
            closeQuietly(checkpointConn);
            readConns.forEach(SqliteStorage::closeQuietly);
            if (e instanceof StoreException se) {
                throw se;
            }
            throw StoreException.unavailable(file + " could not be opened as a Herald database; check the path and"
                    + " permissions, or move the file aside and restore a backup", e, e instanceof SQLException sql && SqlConn.retryable(sql));
        }
    }

    /**
     * Creates the database's folder (mode 700) and an empty database file (mode 600) when they are missing, so
     * that neither the file nor the {@code -wal} and {@code -shm} files SQLite creates with the file's mode are
     * ever readable by others, whatever the umask. SQLite takes an empty file as a new database.
     */
    private static void createPrivately(Path file) {
        try {
            OwnerOnly.folder(file.getParent());
            OwnerOnly.file(file);
        } catch (IOException e) {
            throw StoreException.unavailable("the directory of " + file + " could not be created; check permissions", e, false);
        }
    }

    /** What a connection is for; each gets the pragmas it needs. */
    private enum Role {
        WRITER,
        READER,
        CHECKPOINTER
    }

    private static SqlConn connect(Path file, SqliteOptions options, Role role) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) options.busyTimeout().toMillis());
        SqlConn c = new SqlConn(config.createConnection("jdbc:sqlite:" + file));
        try {
            switch (role) {
                case WRITER -> {
                    requireWal(c, file);
                    c.exec("PRAGMA synchronous = " + options.synchronous().name());
                    c.exec("PRAGMA foreign_keys = ON");
                    c.exec("PRAGMA journal_size_limit = " + SqliteWriter.WAL_RESTART_BYTES);
                    c.exec("PRAGMA cache_size = -" + WRITER_CACHE_KIB);
                    c.exec("PRAGMA wal_autocheckpoint = 0"); // the Checkpointer does it, off the commit path
                }
                case READER -> {
                    c.exec("PRAGMA query_only = ON");
                    c.exec("PRAGMA cache_size = -" + READER_CACHE_KIB);
                }
                case CHECKPOINTER -> c.exec("PRAGMA synchronous = " + options.synchronous().name()); // checkpoints sync by it
            }
            c.exec("PRAGMA temp_store = MEMORY");
            return c;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    private static void requireWal(SqlConn c, Path file) throws SQLException {
        String mode = c.one("PRAGMA journal_mode = WAL", rs -> rs.getString(1)).orElse("?");
        if (!"wal".equals(mode.toLowerCase(Locale.ROOT))) {
            throw StoreException.unavailable(file + " could not be switched to WAL mode (journal mode is " + mode
                    + "); put HERALD_HOME on a local file system", null, false);
        }
    }

    private static void closeQuietly(SqlConn c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("store - closing a connection failed: {}", e.getMessage());
        }
    }

    @Override
    public SessionStore sessions() {
        return sessions;
    }

    @Override
    public TranscriptStore transcripts() {
        return transcripts;
    }

    @Override
    public ModelChoiceStore modelChoices() {
        return modelChoices;
    }

    @Override
    public dev.herald.core.session.ChatPreferences chatPreferences() {
        return chatPreferences;
    }

    @Override
    public dev.herald.core.account.Accounts accounts() {
        return accounts;
    }

    @Override
    public dev.herald.core.memory.Memories memories() {
        return memories;
    }

    @Override
    public dev.herald.core.account.IdentityLinks identityLinks() {
        return identityLinks;
    }

    @Override
    public TurnStore turns() {
        return turns;
    }

    @Override
    public dev.herald.core.cluster.NodeStore nodes() {
        return nodes;
    }

    @Override
    public dev.herald.core.platform.PlatformState platformState() {
        return platformState;
    }

    @Override
    public ScheduleStore schedules() {
        return schedules;
    }

    /** The newest schema version this Herald writes to a SQLite file (an older file is migrated to it at open). */
    public static int schemaVersion() {
        return Migrations.latest();
    }

    /** The absolute path of the database file. */
    public Path file() {
        return file;
    }

    /** The writes committed since this store opened, and the transactions that committed them (diagnostics, tests). */
    public WriteCounts writeCounts() {
        return writer.counts();
    }

    /** Whether writes work now: down while the disk is full or the file system fails, with a warning while space runs low. */
    @Override
    public dev.herald.core.session.StoreHealth health() {
        return outage.health();
    }

    /** Runs {@code sql} (a pragma) on the write connection, in a write of its own (tests: {@code PRAGMA max_page_count}). */
    void onWriteConnection(String sql) {
        writer.write("pragma", c -> {
            c.exec(sql);
            return null;
        });
    }

    /** The value of a pragma on the write connection (for tests and diagnostics). */
    String pragma(String name) {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a pragma name: " + name);
        }
        return writer.write("pragma " + name, c -> c.one("PRAGMA " + name, rs -> rs.getString(1)).orElse(null));
    }

    @Override
    public String describe() {
        return "sqlite " + file + " (WAL, synchronous " + options.synchronous() + ")";
    }

    /** Waits for reads in flight, stops background checkpoints, commits every write queued before this call, then closes. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        readers.close();
        checkpointer.close();
        writer.close(); // last connection: SQLite checkpoints the WAL and removes it
        WriteCounts counts = writer.counts();
        log.info("store - closed {} ({} writes waited for and {} deferred, in {} commits)", file, counts.waited(), counts.deferred(),
                counts.commits());
    }
}
