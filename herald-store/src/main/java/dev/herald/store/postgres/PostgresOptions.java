package dev.herald.store.postgres;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link PostgresStorage} reaches its database; validated here, then fixed for the store's life.
 *
 * <p>{@link #toString()} never shows the password, and shows only the host, port and database of the
 * URL (see {@link JdbcUrl#describe()}), so an options value may be logged or put in a message.
 *
 * @param url            a {@code jdbc:postgresql://host[:port]/database[?properties]} URL
 * @param user           the role to log in as, or null to take it from the URL (or the driver's default)
 * @param password       the role's password, or null when the server does not ask for one (or the URL has it)
 * @param poolSize       most connections held open at once (1..64); concurrent calls beyond it wait
 * @param connectTimeout how long a call waits for a connection (opening one included) before failing
 * @param outageWait     how long a call waits, retrying, while the server cannot be reached before it fails
 *                       ({@code store.outage_wait_seconds})
 */
public record PostgresOptions(String url, String user, String password, int poolSize, Duration connectTimeout, Duration outageWait) {
    /** Connections kept by default: enough for a gateway's concurrent turns, small for the server. */
    public static final int DEFAULT_POOL_SIZE = 8;
    /** How long a call waits for a connection by default. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long a call waits for an unreachable server by default. */
    public static final Duration DEFAULT_OUTAGE_WAIT = dev.herald.store.jdbc.StoreOutage.DEFAULT_WAIT;

    public PostgresOptions {
        JdbcUrl.require(url);
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        user = user == null || user.isBlank() ? null : user.strip();
        password = password == null || password.isEmpty() ? null : password;
        if (poolSize < 1 || poolSize > 64) {
            throw new IllegalArgumentException("store - a PostgreSQL pool of " + poolSize + " connections is out of range (1..64)");
        }
        if (connectTimeout.toMillis() < 250 || connectTimeout.toSeconds() > 600) {
            throw new IllegalArgumentException("store - a PostgreSQL connect timeout of " + connectTimeout.toMillis()
                    + " ms is out of range (250 ms..600 s)");
        }
        Objects.requireNonNull(outageWait, "outageWait");
        if (outageWait.isNegative() || outageWait.toSeconds() > 3600) {
            throw new IllegalArgumentException("store - an outage wait of " + outageWait.toSeconds() + " s is out of range (0..3600 s)");
        }
    }

    /** The given options and the default outage wait. */
    public PostgresOptions(String url, String user, String password, int poolSize, Duration connectTimeout) {
        this(url, user, password, poolSize, connectTimeout, DEFAULT_OUTAGE_WAIT);
    }

    /** The default pool size, connect timeout and outage wait. */
    public static PostgresOptions of(String url, String user, String password) {
        return new PostgresOptions(url, user, password, DEFAULT_POOL_SIZE, DEFAULT_CONNECT_TIMEOUT);
    }

    public PostgresOptions withPoolSize(int size) {
        return new PostgresOptions(url, user, password, size, connectTimeout, outageWait);
    }

    public PostgresOptions withConnectTimeout(Duration timeout) {
        return new PostgresOptions(url, user, password, poolSize, timeout, outageWait);
    }

    /** These options with calls waiting up to {@code wait} for an unreachable server. */
    public PostgresOptions withOutageWait(Duration wait) {
        return new PostgresOptions(url, user, password, poolSize, connectTimeout, wait);
    }

    /** Where the database lives, without credentials: {@code postgresql host:port/database}. */
    public String describe() {
        return JdbcUrl.describe(url);
    }

    @Override
    public String toString() {
        return "PostgresOptions[" + describe() + ", user=" + (user == null ? "(from the URL)" : user) + ", password="
                + (password == null ? "(not set)" : "****") + ", poolSize=" + poolSize + ", connectTimeout=" + connectTimeout + ", outageWait="
                + outageWait + "]";
    }
}
