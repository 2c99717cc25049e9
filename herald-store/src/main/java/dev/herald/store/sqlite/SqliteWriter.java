package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.Await;
import dev.herald.store.jdbc.StoreOutage;
import dev.herald.store.jdbc.Work;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that writes. It owns the write connection; callers hand it work and block until the
 * work is committed (durable) or has failed.
 *
 * <p>Group commit: the writer takes every write queued at that moment (up to {@code maxBatch}) and
 * commits them in one transaction, each inside its own savepoint. A write that throws is rolled back
 * to its savepoint and fails alone; its neighbours commit. If the commit itself fails, every write of
 * the batch fails (none of them is on disk). Results are handed out only after the commit.
 *
 * <p>Deferred writes ({@link #writeSoon}: counters nothing relies on) are queued like the others but nobody waits for
 * them, and they never cause a commit of their own at once: a batch of deferred writes alone waits up to
 * {@link #DEFERRED_WAIT} for a write somebody waits for, and commits with it (one {@code fsync} for both). Because the
 * queue is first in, first out, a caller's deferred write is on disk no later than its next write.
 *
 * <p>When the database cannot be written (the disk is full, the file system fails: {@link SqlConn#cannotWrite}), the
 * failed transaction is rolled back as always, every cached statement is dropped (the driver closes a statement for good
 * once running it failed) and the store's {@link StoreOutage} goes down. A caller's write then runs again with backoff
 * for up to the outage wait ({@link StoreOutage#waitingOut}); a deferred write that failed so is kept and run first in
 * every later transaction until it commits, and its caller's later writes wait for it (they fail as an outage while it
 * cannot commit), so nothing commits before what it relies on. While down, the writer probes at most every
 * {@link #PROBE_EVERY} with a real write that needs {@link #PROBE_BYTES} of new space and is deleted in the same
 * transaction; the first probe that commits brings the store back. After an I/O error the probe opens a new write
 * connection first.
 */
final class SqliteWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SqliteWriter.class);

    private record Task<T>(String subject, Work<SqlConn, T> work, CompletableFuture<T> result, boolean deferred, Caller caller) {
    }

    /** Opens a new write connection with the writer's pragmas (after an I/O error). */
    @FunctionalInterface
    interface Connector {
        SqlConn open() throws SQLException;
    }

    /**
     * A thread that handed in deferred writes: how many are not committed yet, and the failure of one, which fails the
     * caller's writes after it until one that waits has reported it (a write that relies on an earlier deferred one must
     * not succeed without it).
     */
    private static final class Caller {
        final AtomicInteger pending = new AtomicInteger();
        volatile Throwable failed;
        /** A deferred write of this caller could not commit in the transaction being run (writer thread only). */
        boolean blocked;
    }

    /** The WAL size past which the writer restarts the log: the {@code journal_size_limit} the store sets. */
    static final long WAL_RESTART_BYTES = 64L * 1024 * 1024;
    /** How often at most the writer looks at the WAL's size. */
    private static final long WAL_CHECK_NANOS = Duration.ofMillis(100).toNanos();
    /** How long a WAL restart waits for readers still on old frames before it gives up until the next look. */
    private static final int RESTART_WAIT_MS = 250;

    /** How long deferred writes alone wait for a write to commit with. */
    static final Duration DEFERRED_WAIT = Duration.ofMillis(50);
    private static final Task<Void> STOP = new Task<>("stop", c -> null, new CompletableFuture<>(), false, null);
    /** How often at most the writer tries a write while the database cannot be written. */
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);
    /** The new space a probe needs: its row is this large. */
    static final int PROBE_BYTES = 256 * 1024;

    private SqlConn conn; // writer thread only (replaced after an I/O error)
    private final Connector connector;
    private final StoreOutage outage;
    /** Deferred writes that failed because the database could not be written, in order (writer thread only). */
    private final List<Task<?>> held = new ArrayList<>();
    private long probedAt = System.nanoTime();
    private boolean reconnect; // writer thread only: the next probe opens a new connection
    private final Path file;
    private final int maxBatch;
    private final LinkedBlockingQueue<Task<?>> queue = new LinkedBlockingQueue<>();
    private final ReentrantLock admission = new ReentrantLock();
    private boolean closed; // guarded by admission
    private final Thread thread;
    private final Path wal;
    private final int busyTimeoutMs;
    private final long walRestartBytes;
    private long walCheckedAt = System.nanoTime();
    /** The deferred writes of each calling thread (null until its first). */
    private final ThreadLocal<Caller> callers = new ThreadLocal<>();
    /** What this writer committed ({@link #counts}). */
    private final java.util.concurrent.atomic.AtomicLong waited = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong deferred = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong commits = new java.util.concurrent.atomic.AtomicLong();

    SqliteWriter(SqlConn conn, Path file, int maxBatch) {
        this(conn, null, file, maxBatch, Duration.ofSeconds(5), WAL_RESTART_BYTES, new StoreOutage(file.toString(), Duration.ZERO));
    }

    /**
     * @param connector       opens a new write connection after an I/O error (null: the first one is kept)
     * @param busyTimeout     the connection's busy timeout, restored after a WAL restart (which waits less)
     * @param walRestartBytes the WAL size past which the writer restarts the log (see {@link #restartLogIfLarge})
     * @param outage          the store's health, which this writer moves, and how long a write waits for the database
     */
    SqliteWriter(SqlConn conn, Connector connector, Path file, int maxBatch, Duration busyTimeout, long walRestartBytes,
            StoreOutage outage) {
        this.conn = conn;
        this.connector = connector;
        this.outage = outage;
        this.file = file;
        this.maxBatch = maxBatch;
        this.wal = Path.of(file + "-wal");
        this.busyTimeoutMs = (int) Math.min(Integer.MAX_VALUE, busyTimeout.toMillis());
        this.walRestartBytes = walRestartBytes;
        this.thread = Thread.ofPlatform().name("herald-store-writer").daemon(true).start(this::loop);
    }

    /**
     * Runs {@code work} in a write transaction and returns its result once committed. Waits without
     * giving up on interrupts (the caller's interrupt flag is restored), so that when this returns the
     * write has either happened or failed: never "maybe". While the database cannot be written, the write runs again
     * with backoff for up to the outage wait.
     */
    <T> T write(String subject, Work<SqlConn, T> work) {
        if (Thread.currentThread() == thread) {
            throw new IllegalStateException("store - nested write for " + subject + " on the writer thread");
        }
        return outage.waitingOut(() -> {
            Task<T> task = new Task<>(subject, work, new CompletableFuture<>(), false, callers.get());
            enqueue(task);
            return Await.uninterruptibly(task.result(), "store - write failed");
        });
    }

    /**
     * Queues {@code work} to be committed with the next write somebody waits for (or within {@link #DEFERRED_WAIT}),
     * without waiting. {@code onCommit} runs on the writer thread with the work's result once it is committed.
     */
    <T> void writeSoon(String subject, Work<SqlConn, T> work, java.util.function.Consumer<T> onCommit) {
        if (Thread.currentThread() == thread) {
            throw new IllegalStateException("store - nested write for " + subject + " on the writer thread");
        }
        Caller caller = callers.get();
        if (caller == null) {
            caller = new Caller();
            callers.set(caller);
        }
        Caller mine = caller;
        Task<T> task = new Task<>(subject, work, new CompletableFuture<>(), true, mine);
        task.result().whenComplete((result, failure) -> {
            mine.pending.decrementAndGet();
            if (failure != null) {
                log.warn("store - a deferred write for {} on {} failed: {}", subject, file, failure.toString());
            } else if (onCommit != null) {
                onCommit.accept(result);
            }
        });
        mine.pending.incrementAndGet();
        try {
            enqueue(task);
        } catch (RuntimeException e) {
            mine.pending.decrementAndGet();
            throw e;
        }
    }

    /**
     * Commits the calling thread's deferred writes before it reads, so that a thread reads what it wrote (another
     * thread sees them with the next commit).
     */
    void commitDeferredOfThisThread() {
        Caller mine = callers.get();
        if (mine != null && (mine.pending.get() > 0 || mine.failed != null)) {
            write("deferred writes before a read", c -> null);
        }
    }

    private void enqueue(Task<?> task) {
        admission.lock();
        try {
            if (closed) {
                throw StoreException.unavailable(file + " is closed; " + task.subject() + " was not written", null, false);
            }
            queue.add(task);
        } finally {
            admission.unlock();
        }
    }

    private void loop() {
        List<Task<?>> batch = new ArrayList<>(maxBatch);
        boolean stopping = false;
        while (!stopping) {
            batch.clear();
            Task<?> first = outage.down() ? pollUntilProbe() : takeUninterruptibly();
            if (first != null) {
                batch.add(first);
                queue.drainTo(batch, maxBatch - 1);
                if (onlyDeferred(batch)) {
                    waitForCompany(batch);
                }
                stopping = batch.remove(STOP); // STOP is always the last task ever queued
                if (!batch.isEmpty() || stopping && !held.isEmpty()) {
                    commit(batch);
                    restartLogIfLarge();
                }
            }
            if (outage.down() && System.nanoTime() - probedAt >= PROBE_EVERY.toNanos()) {
                probe();
            }
        }
        dropHeld();
        try {
            conn.close();
        } catch (SQLException e) {
            log.warn("store - closing the write connection of {} failed: {}", file, e.getMessage());
        }
    }

    /**
     * Restarts the WAL once it has grown past {@link #walRestartBytes}. The background checkpoints copy frames into the
     * database file but can never let the log start over: SQLite restarts it only when a write begins after a checkpoint
     * copied every frame, and under steady load a commit always comes first, so the file grew without end (2.6 GB after
     * 50,000 turns in the benchmark). A RESTART checkpoint here, between two commits, copies what is left and waits
     * (at most {@link #RESTART_WAIT_MS} ms) for readers to leave the old frames; the next commit then writes from the
     * start of the file, which {@code journal_size_limit} trims. A busy answer is tried again at the next look.
     */
    private void restartLogIfLarge() {
        long now = System.nanoTime();
        if (now - walCheckedAt < WAL_CHECK_NANOS || outage.down()) {
            return;
        }
        walCheckedAt = now;
        long size;
        try {
            size = Files.size(wal);
        } catch (java.io.IOException | RuntimeException e) {
            return; // no log yet, or not readable: nothing to restart
        }
        if (size <= walRestartBytes) {
            return;
        }
        long t0 = System.nanoTime();
        try {
            conn.exec("PRAGMA busy_timeout = " + RESTART_WAIT_MS);
            boolean busy = conn.one("PRAGMA wal_checkpoint(RESTART)", rs -> rs.getInt(1) != 0).orElse(true);
            log.debug("store - WAL of {} at {} bytes: restart {} in {} ms", file, size, busy ? "deferred (readers on old frames)" : "done",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        } catch (SQLException | RuntimeException e) {
            log.warn("store - restarting the WAL of {} ({} bytes) failed ({}); the next look tries again", file, size, e.getMessage());
        } finally {
            try {
                conn.exec("PRAGMA busy_timeout = " + busyTimeoutMs);
            } catch (SQLException | RuntimeException e) {
                log.warn("store - could not restore the busy timeout of {}: {}", file, e.getMessage());
            }
        }
    }

    private static boolean onlyDeferred(List<Task<?>> batch) {
        for (Task<?> t : batch) {
            if (!t.deferred()) {
                return false;
            }
        }
        return true;
    }

    /** Deferred writes alone: waits up to {@link #DEFERRED_WAIT} for another write to share their commit. */
    private void waitForCompany(List<Task<?>> batch) {
        long deadline = System.nanoTime() + DEFERRED_WAIT.toNanos();
        while (batch.size() < maxBatch && onlyDeferred(batch)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                Task<?> next = queue.poll(left, TimeUnit.NANOSECONDS);
                if (next == null) {
                    return;
                }
                batch.add(next);
                queue.drainTo(batch, maxBatch - batch.size());
            } catch (InterruptedException e) {
                return; // only close() ends this thread, through STOP
            }
        }
    }

    /** While the database cannot be written: the next task, or null when the next probe is due first. */
    private Task<?> pollUntilProbe() {
        long left = PROBE_EVERY.toNanos() - (System.nanoTime() - probedAt);
        if (left <= 0) {
            return null;
        }
        try {
            return queue.poll(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            return null; // only close() ends this thread, through STOP
        }
    }

    private Task<?> takeUninterruptibly() {
        while (true) {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                // only close() ends this thread, through STOP
            }
        }
    }

    /**
     * Commits {@code batch}; held deferred writes first, in a transaction of their own (on a full disk SQLite rolls back
     * the whole transaction of a write that failed, which must not take the batch's other writes with it).
     */
    private void commit(List<Task<?>> batch) {
        for (Task<?> t : batch) {
            if (t.caller() != null) {
                t.caller().blocked = false;
            }
        }
        if (!held.isEmpty()) {
            List<Task<?>> again = new ArrayList<>(held);
            held.clear();
            again.forEach(t -> t.caller().blocked = false);
            transaction(again);
            for (Task<?> t : held) {
                t.caller().blocked = true; // still held: nothing later of its caller may commit
            }
        }
        if (!batch.isEmpty()) {
            transaction(batch);
        }
    }

    /** Runs {@code all} in one transaction, each in its own savepoint, and hands out the results once it committed. */
    private void transaction(List<Task<?>> all) {
        Object[] results = new Object[all.size()];
        Throwable[] failures = new Throwable[all.size()];
        boolean[] hold = new boolean[all.size()];
        Throwable failed = null;
        try {
            conn.execAgain("BEGIN IMMEDIATE");
            for (int i = 0; i < all.size(); i++) {
                runInSavepoint(all.get(i), i, results, failures, hold);
            }
            conn.execAgain("COMMIT");
        } catch (SQLException | RuntimeException | Error e) {
            failed = e;
            rollbackQuietly();
            conn.forgetStatements();
        }
        if (failed == null) {
            commits.incrementAndGet();
        } else {
            rolledBack(all, failed, failures, hold);
        }
        for (int i = 0; i < all.size(); i++) {
            Task<?> t = all.get(i);
            if (hold[i]) {
                held.add(t);
                continue;
            }
            if (failures[i] == null) {
                (t.deferred() ? deferred : waited).incrementAndGet();
            }
            complete(t, results[i], failures[i]);
        }
    }

    /** The whole transaction was rolled back by {@code e}: every write of it failed (none is on disk). */
    private void rolledBack(List<Task<?>> all, Throwable e, Throwable[] failures, boolean[] hold) {
        boolean down = SqlConn.cannotWrite(e);
        if (down) {
            cannotWrite(e);
        } else {
            log.warn("store - a write transaction of {} write(s) on {} failed and was rolled back: {}", all.size(), file, e.toString());
        }
        for (int i = 0; i < all.size(); i++) {
            Task<?> t = all.get(i);
            if (hold[i] || failures[i] != null) {
                continue; // held already, or failed for a reason of its own
            }
            if (down && t.deferred()) {
                hold[i] = true;
            } else if (down) {
                failures[i] = StoreException.outage(t.subject() + " was not written", e, true);
            } else {
                failures[i] = e instanceof SQLException sql ? SqlConn.failure(t.subject(), sql) : e;
                if (t.deferred()) {
                    t.caller().failed = failures[i];
                }
            }
        }
    }

    /**
     * Runs one task in its own savepoint; a task failure is recorded (a deferred one that failed because the database
     * cannot be written is held instead), a failure that rolled back the whole transaction is thrown.
     */
    private void runInSavepoint(Task<?> task, int i, Object[] results, Throwable[] failures, boolean[] hold) throws SQLException {
        Caller caller = task.caller();
        if (caller != null && caller.blocked) {
            // an earlier deferred write of this caller is held: nothing of the caller may commit before it
            if (task.deferred()) {
                hold[i] = true;
            } else {
                failures[i] = StoreException.outage(task.subject() + " not written: an earlier write of the same caller waits for "
                        + file + " to take writes again", null, true);
            }
            return;
        }
        if (caller != null && caller.failed != null) {
            failures[i] = StoreException.unavailable(task.subject() + " not written: an earlier write of the same caller failed",
                    caller.failed, false);
            if (!task.deferred()) {
                caller.failed = null; // reported, to a caller that waits
            }
            return;
        }
        conn.execAgain("SAVEPOINT write_task");
        try {
            results[i] = task.work().run(conn);
            conn.execAgain("RELEASE write_task");
        } catch (SQLException | RuntimeException e) {
            try {
                conn.execAgain("ROLLBACK TO write_task");
                conn.execAgain("RELEASE write_task");
            } catch (SQLException gone) {
                e.addSuppressed(gone); // SQLite rolled the whole transaction back (it does on a full disk): it fails with this cause
                throw e;
            } finally {
                conn.forgetStatements();
            }
            if (SqlConn.cannotWrite(e)) {
                cannotWrite(e);
                if (task.deferred()) {
                    hold[i] = true;
                    caller.blocked = true;
                } else {
                    failures[i] = StoreException.outage(task.subject() + " was not written", e, true);
                }
                return;
            }
            failures[i] = e instanceof SQLException sql ? SqlConn.failure(task.subject(), sql) : e;
            if (task.deferred()) {
                caller.failed = failures[i];
            }
        }
    }

    /** The database cannot be written: the store goes down (logged once); after an I/O error the next probe reconnects. */
    private void cannotWrite(Throwable e) {
        outage.cannotWrite(SqlConn.cannotWriteReason(e), SqlConn.cannotWriteProblem(file, e));
        reconnect |= !SqlConn.resultCode(e).equals("SQLITE_FULL");
        log.debug("store - a write on {} failed: {}", file, e.toString());
    }

    /**
     * While the database cannot be written: one write that needs {@link #PROBE_BYTES} of new space, deleted again in the same
     * transaction (nothing stays); when it commits, the store takes writes again.
     */
    private void probe() {
        probedAt = System.nanoTime();
        try {
            if (reconnect && connector != null) {
                SqlConn fresh = connector.open();
                closeQuietly(conn);
                conn = fresh;
                reconnect = false;
            }
            conn.exec("BEGIN IMMEDIATE");
            conn.update("INSERT OR REPLACE INTO platform_state (platform, name, value, updated_at) VALUES ('herald', 'store-probe', "
                    + "randomblob(?), 0)", PROBE_BYTES);
            conn.update("DELETE FROM platform_state WHERE platform = 'herald' AND name = 'store-probe'");
            conn.exec("COMMIT");
            outage.writes();
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            conn.forgetStatements();
            reconnect |= !SqlConn.resultCode(e).equals("SQLITE_FULL");
            log.debug("store - {} still cannot be written: {}", file, e.toString());
            return;
        }
        if (!held.isEmpty()) {
            commit(new ArrayList<>()); // the deferred writes kept meanwhile, without waiting for a write to bring them
        }
    }

    /** At close: deferred writes still held could not be written; their callers' logs say so. */
    private void dropHeld() {
        if (held.isEmpty()) {
            return;
        }
        log.warn("store - {} deferred write(s) were never written: {} could not be written until it closed", held.size(), file);
        for (Task<?> t : held) {
            t.result().completeExceptionally(StoreException.outage(t.subject() + " was not written before " + file + " closed", null, false));
        }
        held.clear();
    }

    private static void closeQuietly(SqlConn c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("store - closing a write connection failed: {}", e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> void complete(Task<T> task, Object result, Throwable failure) {
        if (failure != null) {
            task.result().completeExceptionally(failure);
        } else {
            task.result().complete((T) result);
        }
    }

    private void rollbackQuietly() {
        try {
            conn.exec("ROLLBACK");
        } catch (SQLException e) {
            // no transaction was open (SQLite may already have rolled it back)
        }
    }

    /** What this writer has written so far. */
    WriteCounts counts() {
        return new WriteCounts(waited.get(), deferred.get(), commits.get());
    }

    /** Commits every write queued before this call, then closes the connection. Idempotent. */
    @Override
    public void close() {
        admission.lock();
        try {
            if (!closed) {
                closed = true;
                queue.add(STOP);
            }
        } finally {
            admission.unlock();
        }
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
