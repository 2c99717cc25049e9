package dev.herald.store.jdbc;

/**
 * How a store runs its work on the database. Each dialect has its own way (SQLite: one writer thread and
 * a pool of readers; PostgreSQL: a transaction per call on a connection pool); the stores written once
 * for both only ask for a read or a write. Failures come back as {@code StoreException} naming
 * {@code subject} (a session key, a turn id).
 */
public interface Transactions<C extends JdbcConn> {
    /** Runs {@code work} in a write transaction and returns its result once committed: never "maybe". */
    <T> T write(String subject, Work<C, T> work);

    /**
     * Runs {@code work} in a write transaction without waiting for its commit: for counters that nothing else relies on
     * (token usage). It is committed with the next write that waits (on SQLite, the one writer runs writes in the order
     * they were handed in, so any later write of the caller commits it too) or, with no such write, within
     * {@code SqliteWriter#DEFERRED_WAIT}. A crash before then loses it. A failure is logged, and fails the caller's
     * next write that waits (and its deferred writes before that), so nothing that relies on it commits without it.
     * {@code onCommit} (may be null) gets the result once committed. Stores without a writer thread run it at once.
     */
    default <T> void writeSoon(String subject, Work<C, T> work, java.util.function.Consumer<T> onCommit) {
        T result = write(subject, work);
        if (onCommit != null) {
            onCommit.accept(result);
        }
    }

    /** Runs read-only {@code work} on a connection that sees every committed write. */
    <T> T read(String subject, Work<C, T> work);
}
