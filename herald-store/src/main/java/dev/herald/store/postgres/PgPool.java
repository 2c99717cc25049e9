package dev.herald.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.Await;
import dev.herald.store.jdbc.StoreOutage;
import dev.herald.store.jdbc.Transactions;
import dev.herald.store.jdbc.Work;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
 *   <li><b>Deferred writes commit with their caller's next write.</b> {@link #writeSoon} (a final answer's transcript row,
 *       usage counters) keeps the work for the calling thread; that thread's next {@link #write} runs it first, in the
 *       same transaction, so a final answer and the turn's reply record commit together or not at all (a crash between
 *       them would otherwise leave an answer in the transcript with no reply recorded, and the resume would answer
 *       again). Work the caller does not follow with a write within {@link #DEFERRED_WAIT} is committed by the
 *       {@code herald-store-deferred} thread, in order, under the same per-caller lock.</li>
 *   <li><b>Errors</b> become {@link StoreException} naming the subject (a session key, a turn id) and the
 *       database as {@code postgresql host:port/db}; the URL and credentials never appear.</li>
 * </ul>
 */
final class PgPool implements Transactions<PgConn>, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PgPool.class);
    private static final int MAX_ATTEMPTS = 8;
    /** The pause before another try of a transaction that collided with a concurrent one: 1-2 ms, doubling, jittered. */
    private static final Backoff COLLISION = Backoff.jittered(Duration.ofMillis(2), Duration.ofMillis(64), Duration.ZERO);

    /** Thrown by work that lost a race: the transaction is rolled back and the work runs again. */
    static final class Retry extends RuntimeException {
        Retry(String why) {
            super(why, null, false, false);
        }
    }

    /** How often, while the server cannot be reached, the probe tries it. */
    static final java.time.Duration PROBE_EVERY = java.time.Duration.ofSeconds(1);

    /** How long a caller's deferred work may wait for the caller's next write before it is committed on its own. */
    static final java.time.Duration DEFERRED_WAIT = java.time.Duration.ofMillis(50);

    /** One deferred work and what gets its result once committed. */
    private record Deferred<T>(String subject, Work<PgConn, T> work, java.util.function.Consumer<T> onCommit) {
        Runnable runIn(PgConn c) throws SQLException {
            T result = work.run(c);
            return onCommit == null ? () -> { } : () -> onCommit.accept(result);
        }
    }

    /** A caller thread's deferred work, in the order handed in; its lock orders their commit before the caller's next write. */
    private static final class Pending {
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        final java.util.List<Deferred<?>> items = new java.util.ArrayList<>();
        long since;
    }

    private final java.util.concurrent.ConcurrentHashMap<Thread, Pending> pending = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicBoolean flushing = new java.util.concurrent.atomic.AtomicBoolean();
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

    /** Runs {@code work} in a transaction (after the caller's deferred work, in the same one) and returns its result once committed. */
    @Override
    public <T> T write(String subject, Work<PgConn, T> work) {
        Pending mine = pending.get(Thread.currentThread());
        if (mine == null) {
            return call(subject, "written", work);
        }
        mine.lock.lock();
        try {
            if (mine.items.isEmpty()) {
                return call(subject, "written", work);
            }
            java.util.List<Deferred<?>> before = java.util.List.copyOf(mine.items);
            java.util.List<Runnable> callbacks = new java.util.ArrayList<>();
            T result;
            try {
                result = call(subject, "written", c -> {
                    callbacks.clear(); // the transaction may run again after a collision
                    for (Deferred<?> d : before) {
                        callbacks.add(d.runIn(c));
                    }
                    return work.run(c);
                });
            } catch (RuntimeException e) {
                mine.items.clear(); // they fail with the write that carried them, as SQLite's deferred writes do
                log.warn("store - {} deferred write(s) before {} were not committed: {}", before.size(), subject, e.toString());
                throw e;
            }
            mine.items.clear();
            callbacks.forEach(Runnable::run);
            return result;
        } finally {
            if (mine.items.isEmpty()) {
                pending.remove(Thread.currentThread(), mine);
            }
            mine.lock.unlock();
        }
    }

    /**
     * Keeps {@code work} for the calling thread's next write, which commits it first in its own transaction; without one
     * within {@link #DEFERRED_WAIT}, the deferred thread commits it.
     */
    @Override
    public <T> void writeSoon(String subject, Work<PgConn, T> work, java.util.function.Consumer<T> onCommit) {
        if (closed) {
            throw closedFailure(subject, "written");
        }
        while (true) {
            Pending mine = pending.computeIfAbsent(Thread.currentThread(), t -> new Pending());
            mine.lock.lock();
            try {
                if (pending.get(Thread.currentThread()) != mine) {
                    continue; // the deferred thread committed and dropped it meanwhile
                }
                if (mine.items.isEmpty()) {
                    mine.since = System.nanoTime();
                }
                mine.items.add(new Deferred<>(subject, work, onCommit));
                break;
            } finally {
                mine.lock.unlock();
            }
        }
        startFlusher();
    }

    /** Commits deferred work whose caller did not write again within {@link #DEFERRED_WAIT}, while any is kept. */
    private void startFlusher() {
        if (!flushing.compareAndSet(false, true)) {
            return;
        }
        Thread.ofVirtual().name("herald-store-deferred").start(() -> {
            try {
                while (!pending.isEmpty()) {
                    Thread.sleep(DEFERRED_WAIT);
                    flushOlderThan(DEFERRED_WAIT.toNanos());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                flushing.set(false);
            }
            if (!pending.isEmpty() && !closed) {
                startFlusher(); // work handed in as the loop ended
            }
        });
    }

    private void flushOlderThan(long nanos) {
        for (var e : pending.entrySet()) {
            Pending p = e.getValue();
            if (!p.lock.tryLock()) {
                continue; // its caller is writing it now
            }
            try {
                if (p.items.isEmpty() || System.nanoTime() - p.since < nanos) {
                    if (p.items.isEmpty()) {
                        pending.remove(e.getKey(), p);
                    }
                    continue;
                }
                java.util.List<Deferred<?>> items = java.util.List.copyOf(p.items);
                p.items.clear();
                java.util.List<Runnable> callbacks = new java.util.ArrayList<>();
                try {
                    call(items.getFirst().subject(), "written", c -> {
                        callbacks.clear();
                        for (Deferred<?> d : items) {
                            callbacks.add(d.runIn(c));
                        }
                        return null;
                    });
                    callbacks.forEach(Runnable::run);
                } catch (RuntimeException failure) {
                    log.warn("store - {} deferred write(s) ({}...) were not committed: {}", items.size(), items.getFirst().subject(),
                            failure.toString());
                }
                pending.remove(e.getKey(), p); // under its lock: its caller hands in new work to a new entry, committed after these
            } finally {
                p.lock.unlock();
            }
        }
    }

    /**
     * Runs read-only {@code work} in a transaction (a consistent snapshot for each statement); the caller's deferred work
     * is committed first, so a thread reads its own writes.
     */
    @Override
    public <T> T read(String subject, Work<PgConn, T> work) {
        Pending mine = pending.get(Thread.currentThread());
        if (mine != null && !mine.items.isEmpty()) {
            write(subject, c -> null);
        }
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
            LockSupport.parkNanos(COLLISION.delay(attempt).toNanos());
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
        flushOlderThan(0); // deferred work handed in before the close is committed first
        closed = true;
        calls.close();
        dataSource.close();
    }
}
