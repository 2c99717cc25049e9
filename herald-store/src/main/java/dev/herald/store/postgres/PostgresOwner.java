package dev.herald.store.postgres;

import dev.herald.core.session.StoreException;
import dev.herald.store.StoreOwner;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gateway's claim on a PostgreSQL database: a session-level advisory lock held on a connection of its own
 * (outside the pool) until {@link #close()} or the process ends; the server drops it with the connection.
 * The connection's application name says who holds it ({@code herald-gateway pid 4242 on host1}), so a refused
 * gateway can name the running one when the server lets it see other sessions.
 */
public final class PostgresOwner implements StoreOwner {
    private static final Logger log = LoggerFactory.getLogger(PostgresOwner.class);
    /** The advisory lock a gateway holds on its database ("HGATEW" in ASCII). */
    public static final long GATEWAY_LOCK = 0x48_47_41_54_45_57L;
    private static final String HOLDER = """
            SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = ? AND l.objid::bigint = ? AND l.objsubid = 1
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())""";

    private final String where;
    private final Connection connection;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PostgresOwner(String where, Connection connection) {
        this.where = where;
        this.connection = connection;
    }

    /**
     * Claims the database of {@code options} for the gateway of this process.
     *
     * @throws StoreException naming the database (and the holder when visible) when another gateway holds it, or
     *                        when the database cannot be reached; never the URL's properties or the password
     */
    public static PostgresOwner claim(PostgresOptions options) {
        return claim(options, false);
    }

    /**
     * {@link #claim(PostgresOptions)}; {@code shared} for a node of a cluster: a shared advisory lock, which every node
     * of the cluster holds and which refuses (and is refused by) a gateway without clustering.
     */
    public static PostgresOwner claim(PostgresOptions options, boolean shared) {
        Objects.requireNonNull(options, "options");
        String where = options.describe();
        Properties login = new Properties();
        if (options.user() != null) {
            login.setProperty("user", options.user());
        }
        if (options.password() != null) {
            login.setProperty("password", options.password());
        }
        login.setProperty("ApplicationName", identity());
        login.setProperty("connectTimeout", String.valueOf(Math.max(1, options.connectTimeout().toSeconds())));
        Connection c = null;
        try {
            c = DriverManager.getConnection(options.url(), login);
            c.setAutoCommit(true);
            boolean got;
            String take = shared ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock";
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + take + "(" + GATEWAY_LOCK + ")")) {
                got = rs.next() && rs.getBoolean(1);
            }
            if (!got) {
                throw shared ? StoreException.inUseAlone(where, holder(c)) : StoreException.inUse(where, holder(c));
            }
            log.info("store - {} claimed for this gateway", where);
            PostgresOwner owner = new PostgresOwner(where, c);
            c = null;
            return owner;
        } catch (SQLException e) {
            throw StoreException.unavailable(where + " could not be claimed for this gateway", Redaction.withoutSecret(e, options.password()),
                    PgErrors.retryable(e));
        } finally {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // the refused claim's connection; nothing of it is kept
                }
            }
        }
    }

    /** This process as the lock's connection names it (PostgreSQL keeps 63 bytes of it). */
    private static String identity() {
        String id = "herald-gateway " + StoreOwner.thisProcess();
        return id.length() > 63 ? id.substring(0, 63) : id;
    }

    /** The holder's {@code pid N on host}, when the server shows other sessions to this role; else null. */
    private static String holder(Connection c) {
        try (PreparedStatement ps = c.prepareStatement(HOLDER)) {
            ps.setLong(1, GATEWAY_LOCK >>> 32);
            ps.setLong(2, GATEWAY_LOCK & 0xFFFF_FFFFL);
            try (ResultSet rs = ps.executeQuery()) {
                String name = rs.next() ? rs.getString(1) : null;
                return name != null && name.startsWith("herald-gateway ") ? name.substring("herald-gateway ".length()) : null;
            }
        } catch (SQLException e) {
            return null;
        }
    }

    @Override
    public String describe() {
        return where;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            log.warn("store - releasing the gateway claim on {} failed: {}", where, e.getSQLState());
        }
    }
}
