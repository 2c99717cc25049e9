package dev.herald.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import java.sql.SQLException;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's store on a PostgreSQL server: the session index, transcripts and turns in one database, with
 * the same behaviour as the SQLite store (the same contract suites run against both).
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Plain JDBC on a small pool</b> ({@link PgPool}, HikariCP): every call, read or write, is one
 *       READ COMMITTED transaction that has committed when the call returns.</li>
 *   <li><b>Several writers, several nodes.</b> Nothing relies on a lock inside this JVM. Rules that span
 *       rows are SQL constraints (one RUNNING turn per lane, inbound dedupe, unique ids); a lane's
 *       read-modify-write locks its row ({@code SELECT ... FOR UPDATE}); appends lock their transcript
 *       session's row so {@code seq} stays dense; state changes are conditional UPDATEs (compare-and-set);
 *       a writer that loses a race to create a row rolls back and runs again; deadlocks and serialization
 *       failures are retried.</li>
 *   <li><b>Schema</b> in versioned migrations ({@code db/postgres/V<n>__*.sql}, {@link PgMigrations}),
 *       applied at open under an advisory lock; a database of a newer Herald is refused.</li>
 *   <li><b>Scale.</b> Every operation reaches its rows through an index (lanes by key; resume marks,
 *       stuck-loop counters and running turns through partial indexes; rows by (session, seq)); nothing
 *       loads or rewrites the whole index, and opening scans nothing.</li>
 *   <li><b>Bad rows.</b> A row that cannot be decoded raises {@code StoreException.corruptRow} naming its
 *       key on single-key calls and is logged and skipped by listings; it is never overwritten.</li>
 *   <li><b>Time.</b> Epoch microseconds in BIGINT columns, as in SQLite; instants handed back are
 *       truncated to microseconds so they equal what a later read returns.</li>
 *   <li><b>Secrets.</b> Messages and logs name the database as {@code postgresql host:port/db}
 *       ({@link #describe()}); the URL, the user's password and the URL's properties never appear.</li>
 * </ul>
 */
public final class PostgresStorage implements Storage {
    private static final Logger log = LoggerFactory.getLogger(PostgresStorage.class);

    private final String where;
    private final PgPool pool;
    /**
     * Several writers and nodes: a lane's read-modify-write locks its row, a stop's mark holds the turn it checks,
     * appends to a transcript lock its session's row (without blocking foreign-key checks), and a writer that lost a
     * race to create a row rolls back and runs again ({@link PgPool.Retry}).
     */
    static final Dialect DIALECT = new Dialect("postgresql", " FOR UPDATE", " FOR SHARE", " FOR NO KEY UPDATE", "created_order",
            PgPool.Retry::new, "SELECT CAST(EXTRACT(EPOCH FROM now()) * 1000000 AS BIGINT)",
            " FOR UPDATE OF t SKIP LOCKED");

    private final JdbcSessionStore<PgConn> sessions;
    private final JdbcTranscriptStore<PgConn> transcripts;
    private final JdbcTurnStore<PgConn> turns;
    private final JdbcModelChoices<PgConn> modelChoices;
    private final JdbcChatPreferences<PgConn> chatPreferences;
    private final dev.herald.store.jdbc.JdbcAccounts<PgConn> accounts;
    private final dev.herald.store.jdbc.JdbcMemories<PgConn> memories;
    private final dev.herald.store.jdbc.JdbcIdentityLinks<PgConn> identityLinks;
    private final JdbcNodeStore<PgConn> nodes;
    private final dev.herald.store.jdbc.JdbcPlatformState<PgConn> platformState;
    private final JdbcScheduleStore<PgConn> schedules;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PostgresStorage(String where, PgPool pool, Clock clock) {
        this.where = where;
        this.pool = pool;
        HistoryCache histories = new HistoryCache();
        this.sessions = new JdbcSessionStore<>(pool, DIALECT, clock, histories);
        this.transcripts = new JdbcTranscriptStore<>(pool, DIALECT, histories);
        this.turns = new JdbcTurnStore<>(pool, DIALECT, clock, histories);
        this.modelChoices = new JdbcModelChoices<>(pool, clock);
        this.chatPreferences = new JdbcChatPreferences<>(pool, clock);
        this.accounts = new dev.herald.store.jdbc.JdbcAccounts<>(pool, clock);
        this.memories = new dev.herald.store.jdbc.JdbcMemories<>(pool);
        this.identityLinks = new dev.herald.store.jdbc.JdbcIdentityLinks<>(pool);
        this.nodes = new JdbcNodeStore<>(pool, DIALECT, clock);
        this.platformState = new dev.herald.store.jdbc.JdbcPlatformState<>(pool, clock);
        this.schedules = new JdbcScheduleStore<>(pool);
    }

    /**
     * Connects to the database and migrates its schema.
     *
     * @throws StoreException when the server cannot be reached or refuses the login, or the database was
     *                        written by a newer Herald; the message names the database without credentials
     */
    /** The pool every store of this storage runs its work on (for tests of its transactions). */
    PgPool pool() {
        return pool;
    }

    public static PostgresStorage open(PostgresOptions options, Clock clock) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(clock, "clock");
        long started = System.nanoTime();
        String where = options.describe();
        PgPool pool = new PgPool(connect(options, where), where, new dev.herald.store.jdbc.StoreOutage(where, options.outageWait()));
        try {
            int before = pool.write("schema migration", c -> PgMigrations.apply(c, where, clock));
            int latest = PgMigrations.latest();
            log.info("store - opened {} (schema v{}{}, pool of {}) in {} ms", where, latest,
                    before == latest ? "" : before == 0 ? ", created" : ", migrated from v" + before, options.poolSize(),
                    (System.nanoTime() - started) / 1_000_000);
            return new PostgresStorage(where, pool, clock);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** Starts the pool; it fails at once when the first connection cannot be made. */
    private static HikariDataSource connect(PostgresOptions options, String where) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("herald-store");
        config.setDriverClassName("org.postgresql.Driver");
        config.setJdbcUrl(options.url());
        if (options.user() != null) {
            config.setUsername(options.user());
        }
        if (options.password() != null) {
            config.setPassword(options.password());
        }
        config.setMaximumPoolSize(options.poolSize());
        config.setAutoCommit(false);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setConnectionTimeout(options.connectTimeout().toMillis());
        config.addDataSourceProperty("ApplicationName", "herald");
        config.addDataSourceProperty("connectTimeout", String.valueOf(Math.max(1, options.connectTimeout().toSeconds())));
        config.addDataSourceProperty("tcpKeepAlive", "true");
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            SQLException sql = Redaction.sqlCause(e);
            throw StoreException.unavailable(where + " could not be opened; check store.url, store.user and store.password, and that"
                    + " the server is running and accepts this client", Redaction.withoutSecret(e, options.password()),
                    sql != null && PgErrors.retryable(sql));
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

    /** The newest schema version this Herald writes to a PostgreSQL database (an older one is migrated to it at open). */
    public static int schemaVersion() {
        return PgMigrations.latest();
    }

    /** Whether the server can be reached now, as the store's calls found out. */
    @Override
    public dev.herald.core.session.StoreHealth health() {
        return pool.outage().health();
    }

    /** {@code postgresql host:port/database}: never the user, the password or the URL's properties. */
    @Override
    public String describe() {
        return where;
    }

    /** Waits for the calls in flight, then closes every connection. Idempotent. A gateway's claim is a {@link PostgresOwner}. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pool.close();
        log.info("store - closed {}", where);
    }
}
