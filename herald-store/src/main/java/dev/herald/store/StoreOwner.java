package dev.herald.store;

/**
 * The claim one gateway holds on its store for as long as it runs: SQLite's lock file next to the database
 * ({@link dev.herald.store.sqlite.SqliteOwner}), PostgreSQL's session advisory lock
 * ({@link dev.herald.store.postgres.PostgresOwner}). A gateway's start-up treats every turn still marked running
 * as cut off by a crash, so a second gateway on the same store would "recover" the first one's live turns and
 * answer them twice; the claim is taken before anything else is read or written, and a second claim is refused
 * with {@link dev.herald.core.session.StoreException#inUse} naming the holder. The operating system (or the
 * database server) drops the claim when the process dies, so a crash never leaves a stale claim behind.
 * Readers ({@code herald status}, the admin page of another process, tests) open the store without claiming.
 */
public interface StoreOwner extends AutoCloseable {
    /** What is held, for logs: {@code /srv/herald/herald.db-lock} or {@code postgresql host:5432/herald}. */
    String describe();

    /** Releases the claim. Idempotent. */
    @Override
    void close();
}
