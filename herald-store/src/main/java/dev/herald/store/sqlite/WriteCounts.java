package dev.herald.store.sqlite;

/**
 * The writes a SQLite store's one writer has committed since the store opened: {@code waited} (a caller waited for the
 * commit), {@code deferred} (committed with a later write, nobody waiting) and the transactions that committed them
 * ({@code commits}: one {@code fsync} each with {@code synchronous=FULL}). Concurrent callers share commits.
 */
public record WriteCounts(long waited, long deferred, long commits) {

    /** What was written between {@code before} and this. */
    public WriteCounts since(WriteCounts before) {
        return new WriteCounts(waited - before.waited, deferred - before.deferred, commits - before.commits);
    }
}
