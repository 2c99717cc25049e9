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

    /** Runs read-only {@code work} on a connection that sees every committed write. */
    <T> T read(String subject, Work<C, T> work);
}
