package dev.herald.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.Await;
import dev.herald.store.jdbc.StoreOutage;
import dev.herald.store.jdbc.Transactions;
import dev.herald.store.jdbc.Work;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the stores' work in transactions on pooled connections.
 *
 * <ul>
 *   <li><b>One transaction per call.</b> Every call, read or write, runs on one connection in one
 *       READ COMMITTED transaction and commits before its result is handed out: "returned" means
 *       "committed". A failure rolls the whole call back.</li>
 *   <li><b>Collisions are retried.</b> A deadlock or serialization failure reported by the server, or a
 *       {@link Retry} thrown by the work (it lost a race another node or thread won, e.g. creating the same
 *       lane), rolls back and runs the work again, a few times, with a short random pause.</li>
 *   <li><b>Never "maybe".</b> The work runs on a virtual thread of its own and the caller waits without
 *       giving up on interrupts (its flag is restored), so an interrupt can neither cut a statement off
 *       half-way (closing the socket) nor make the caller return while a commit is in flight.</li>
 *   <li><b>Outages are waited out.</b> A call that fails because the server cannot be reached ({@link PgErrors#unreachable})
 *       marks the store down ({@link StoreOutage}, logged once) and runs again with backoff for up to the outage wait;
 *       a failure during the COMMIT itself is not run again (it may have committed) and fails as an outage. While the
 *       store is down, a probe ({@code herald-store-probe}) tries the server every {@link #PROBE_EVERY}, and any call that
 *       succeeds brings the store back.</li>
 *   <li><b>Errors</b> become {@link StoreException} naming the subject (a session key, a turn id) and the
 *       database as {@code postgresql host:port/db}; the URL and credentials never appear.</li>
 * </ul>
 */
final class PgPool implements Transactions<PgConn>, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgPool.class);
    private static final int MAX_ATTEMPTS = 8;

    /** Thrown by work that lost a race: the transaction is rolled back and the work runs again. */
    static final class Retry extends RuntimeException {
        Retry(String why) {
            super(why, null, false, false);
        }
    }

    /** How often, while the server cannot be reached, the probe tries it. */
    static final java.time.Duration PROBE_EVERY = java.time.Duration.ofSeconds(1);

    private final HikariDataSource dataSource;
    private final String where;
    private final StoreOutage outage;
    private final ExecutorService calls = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("herald-store-", 0).factory());
    private final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;

    PgPool(HikariDataSource dataSource, String where, StoreOutage outage) {
        this.dataSource = dataSource;
        this.where = where;
        this.outage = outage;
    }

    /** Whether the server can be reached, as the calls found out. */
    StoreOutage outage() {
        return outage;
    }

    /** Runs {@code work} in a transaction and returns its result once committed. */
    @Override
    public <T> T write(String subject, Work<PgConn, T> work) {
        return call(subject, "written", work);
    }

    /** Runs read-only {@code work} in a transaction (a consistent snapshot for each statement). */
    @Override
    public <T> T read(String subject, Work<PgConn, T> work) {
        return call(subject, "read", work);
    }

    private <T> T call(String subject, String verb, Work<PgConn, T> work) {
        return outage.waitingOut(() -> callOnce(subject, verb, work));
    }

    private <T> T callOnce(String subject, String verb, Work<PgConn, T> work) {
        if (closed) {
            throw closedFailure(subject, verb);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            calls.execute(() -> {
                try {
                    result.complete(transaction(subject, work));
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            throw closedFailure(subject, verb);
        }
        return Await.uninterruptibly(result, "store - a store call failed");
    }

    private StoreException closedFailure(String subject, String verb) {
        return StoreException.unavailable(where + " is closed; " + subject + " was not " + verb, null, false);
    }

    private <T> T transaction(String subject, Work<PgConn, T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                T result = once(subject, work);
                outage.writes();
                return result;
            } catch (Retry e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw StoreException.unavailable(subject + " on " + where + " lost " + attempt + " races with concurrent writers ("
                            + e.getMessage() + ")", null, true);
                }
                log.debug("store - {}: {}; trying again", subject, e.getMessage());
            } catch (SQLException e) {
                if (PgErrors.unreachable(e)) {
                    throw unreachable(subject, e, true);
                }
                if (!PgErrors.collision(e) || attempt >= MAX_ATTEMPTS) {
                    throw StoreException.unavailable(subject + " on " + where, e, PgErrors.retryable(e));
                }
                log.debug("store - {}: collided with a concurrent transaction ({}); trying again", subject, e.getSQLState());
            }
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000L, 2_000_000L) * attempt);
        }
    }

    private <T> T once(String subject, Work<PgConn, T> work) throws SQLException {
        Connection conn = dataSource.getConnection();
        try {
            T result = work.run(new PgConn(conn));
            try {
                conn.commit();
            } catch (SQLException e) {
                if (PgErrors.unreachable(e)) {
                    throw unreachable(subject + " (the connection broke during its commit, so it may have committed)", e, false);
                }
                throw e;
            }
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            rollbackQuietly(conn, e);
            throw e;
        } finally {
            closeQuietly(conn);
        }
    }

    /** The server could not be reached: the store is down (logged once, probed until it answers) and the call fails as an outage. */
    private StoreException unreachable(String subject, SQLException e, boolean nothingWritten) {
        String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        outage.cannotWrite("the database cannot be reached", where + " cannot be reached (" + e.getSQLState() + ": " + message + ")");
        startProbe();
        return StoreException.outage(subject + " on " + where, e, nothingWritten);
    }

    /** While the store is down and nothing else calls, one thread tries the server every {@link #PROBE_EVERY}. */
    private void startProbe() {
        if (closed || !probing.compareAndSet(false, true)) {
            return;
        }
        Thread.ofVirtual().name("herald-store-probe").start(() -> {
            try {
                while (outage.down() && !closed) {
                    Thread.sleep(PROBE_EVERY);
                    try (Connection c = dataSource.getConnection(); var s = c.createStatement()) {
                        s.execute("SELECT 1");
                        c.commit();
                        outage.writes();
                    } catch (SQLException | RuntimeException e) {
                        log.debug("store - {} still cannot be reached: {}", where, e.toString());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                probing.set(false);
            }
            if (outage.down() && !closed) {
                startProbe(); // went down again as the probe ended
            }
        });
    }

    private static void rollbackQuietly(Connection conn, Throwable cause) {
        try {
            conn.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private void closeQuietly(Connection conn) {
        try {
            conn.close();
        } catch (SQLException e) {
            log.debug("store - returning a connection of {} to the pool failed: {}", where, e.getMessage());
        }
    }

    /** Refuses new calls, waits for the calls in flight to finish, then closes every connection. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        calls.close();
        dataSource.close();
    }
}
