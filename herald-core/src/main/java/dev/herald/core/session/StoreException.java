package dev.herald.core.session;

/**
 * A store failed. The message names the subject (a session key, a session id, the database file)
 * and says whether retrying can help, and whether the store as a whole could not write ({@link #outage()}: the disk is
 * full, the database unreachable) rather than this one call failing.
 */
public final class StoreException extends RuntimeException {
    private final boolean retryable;
    private final boolean outage;

    private StoreException(String message, Throwable cause, boolean retryable) {
        this(message, cause, retryable, false);
    }

    private StoreException(String message, Throwable cause, boolean retryable, boolean outage) {
        super(message, cause);
        this.retryable = retryable;
        this.outage = outage;
    }

    /** A stored row could not be read; it is left as it is. */
    public static StoreException corruptRow(String subject, String problem, Throwable cause) {
        return new StoreException("store - row " + subject + " is unreadable (" + problem + "); it was left untouched", cause, false);
    }

    /** The database could not be reached or was busy for too long. */
    public static StoreException unavailable(String subject, Throwable cause, boolean retryable) {
        return new StoreException("store - " + subject + (cause == null ? "" : ": " + cause.getMessage()), cause, retryable);
    }

    /**
     * The store could not write at all (the disk holding it is full, the database server unreachable). With
     * {@code retryable}, nothing of the call was written, so running it again once the store works is safe; without it,
     * the call may have committed (the connection broke during the commit).
     */
    public static StoreException outage(String subject, Throwable cause, boolean retryable) {
        return new StoreException("store - " + subject + (cause == null ? "" : ": " + cause.getMessage()), cause, retryable, true);
    }

    /** Another gateway holds the database; two gateways must not run turns on one store. */
    public static StoreException inUse(String subject) {
        return inUse(subject, null);
    }

    /**
     * Another gateway holds the database; {@code holder} says which (e.g. {@code pid 4242 on host1}), or is null
     * when it is not known.
     */
    public static StoreException inUse(String subject, String holder) {
        return new StoreException("store - " + subject + " is in use by another Herald gateway" + (holder == null ? "" : " (" + holder + ")")
                + "; run one gateway per database", null, false);
    }

    /**
     * A gateway that runs without clustering holds the database, so a cluster node may not join it; {@code holder} as in
     * {@link #inUse(String, String)}.
     */
    public static StoreException inUseAlone(String subject, String holder) {
        return new StoreException("store - " + subject + " is in use by a Herald gateway that runs without clustering"
                + (holder == null ? "" : " (" + holder + ")") + "; set cluster.enabled: true on every node that shares it, or run one "
                + "gateway per database", null, false);
    }

    /** Another live node registered with the same node id; two nodes must not share one. */
    public static StoreException nodeIdInUse(String nodeId, String holder) {
        return new StoreException("store - node id " + nodeId + " is registered by a live node (" + holder + "); give every node its "
                + "own cluster.node_id, or leave it unset", null, false);
    }

    public static StoreException notFound(String subject) {
        return new StoreException("store - " + subject + " does not exist", null, false);
    }

    public boolean retryable() {
        return retryable;
    }

    /** Whether the store as a whole could not write (see {@link #outage(String, Throwable, boolean)}). */
    public boolean outage() {
        return outage;
    }

    /** Whether {@code failure}, or one of its causes, is a store outage. */
    public static boolean isOutage(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StoreException s && s.outage) {
                return true;
            }
        }
        return false;
    }
}
