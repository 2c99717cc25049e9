package dev.herald.store.sqlite;

/**
 * A full disk for tests, made by SQLite itself: {@code PRAGMA max_page_count} on the store's write connection caps the
 * database at the pages it has, so the next write that needs a new page fails with a real {@code SQLITE_FULL}, as on a
 * full file system (the limit belongs to the connection: other connections, and a new write connection, do not have it).
 * {@link #free} lifts the cap, as freeing space on the disk would.
 */
public final class FullDisk {
    private FullDisk() {
    }

    /** From now on, a write that needs more pages than the database has fails with SQLITE_FULL. */
    public static void fill(SqliteStorage store) {
        store.onWriteConnection("PRAGMA max_page_count = 1"); // SQLite raises a limit under the file's size to its size
    }

    /** Space is free again: the cap is lifted. */
    public static void free(SqliteStorage store) {
        store.onWriteConnection("PRAGMA max_page_count = 4294967294");
    }
}
