package dev.herald.store.sqlite;

import dev.herald.core.session.StoreException;
import dev.herald.store.jdbc.Work;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed set of query-only connections. A read borrows one, runs on the caller's thread and gives it
 * back. In WAL mode readers never wait for the writer and see every committed write.
 */
final class ReadPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReadPool.class);

    private final Path file;
    private final List<SqlConn> all;
    private final ArrayBlockingQueue<SqlConn> idle;
    private final Duration wait;
    private volatile boolean closed;

    ReadPool(Path file, List<SqlConn> connections, Duration wait) {
        this.file = file;
        this.all = List.copyOf(connections);
        this.idle = new ArrayBlockingQueue<>(all.size(), false, all);
        this.wait = wait;
    }

    <T> T read(String subject, Work<SqlConn, T> work) {
        SqlConn conn = borrow(subject);
        try {
            return work.run(conn);
        } catch (SQLException e) {
            throw SqlConn.failure(subject, e);
        } finally {
            idle.add(conn);
        }
    }

    private SqlConn borrow(String subject) {
        if (closed) {
            throw StoreException.unavailable(file + " is closed; " + subject + " was not read", null, false);
        }
        long started = System.nanoTime();
        try {
            SqlConn conn = idle.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (conn == null) {
                throw StoreException.unavailable("no read connection of " + file + " came free for " + subject + " after "
                        + (System.nanoTime() - started) / 1_000_000 + " ms (pool " + all.size() + ", all busy)", null, true);
            }
            return conn;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw StoreException.unavailable("interrupted while waiting for a read connection for " + subject, e, true);
        }
    }

    /** Waits for borrowed connections to come back (up to the wait), then closes them all. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        int back = 0;
        try {
            for (; back < all.size(); back++) {
                if (idle.poll(wait.toMillis(), TimeUnit.MILLISECONDS) == null) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (back < all.size()) {
            log.warn("store - {} of {} read connections of {} were still in use at close; closing them anyway", all.size() - back, all.size(), file);
        }
        for (SqlConn conn : all) {
            try {
                conn.close();
            } catch (SQLException e) {
                log.warn("store - closing a read connection of {} failed: {}", file, e.getMessage());
            }
        }
    }
}
