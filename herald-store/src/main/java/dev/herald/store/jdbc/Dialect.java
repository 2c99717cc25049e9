package dev.herald.store.jdbc;

import java.util.Objects;
import java.util.function.Function;

/**
 * What differs between the databases, as a value the stores are composed with; the SQL itself is written once.
 * SQLite writes on one thread, so it needs no row locks and never loses a race; PostgreSQL has several writers (and
 * nodes), so a lane's read-modify-write locks its row, a stop's mark holds the turn it checks, an append locks its
 * transcript, and a writer that loses a race to create a row rolls back and runs again.
 *
 * @param name           for messages: {@code sqlite} or {@code postgresql}
 * @param lockForUpdate  appended to the SELECT of a row about to be changed ({@code " FOR UPDATE"}, or empty)
 * @param lockForShare   appended to a sub-SELECT whose row must not change until the statement commits
 *                       ({@code " FOR SHARE"}, or empty)
 * @param lockForAppend  appended to the SELECT of a transcript session before a row is appended to it or it ends: a lock
 *                       that keeps other appends out but not foreign-key checks ({@code " FOR NO KEY UPDATE"}, or empty)
 * @param insertionOrder a column of {@code transcript_sessions} that orders rows by insertion, to break ties between
 *                       children started in the same microsecond ({@code rowid}, {@code created_order})
 * @param lostRace       what a writer throws when another writer created the row it meant to create: the database's
 *                       retry rule (roll back and run again), or a bug where writes are serial
 */
public record Dialect(String name, String lockForUpdate, String lockForShare, String lockForAppend, String insertionOrder,
        Function<String, RuntimeException> lostRace) {

    public Dialect {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(lockForUpdate, "lockForUpdate");
        Objects.requireNonNull(lockForShare, "lockForShare");
        Objects.requireNonNull(lockForAppend, "lockForAppend");
        Objects.requireNonNull(insertionOrder, "insertionOrder");
        Objects.requireNonNull(lostRace, "lostRace");
    }
}
