package dev.herald.store.jdbc;

/**
 * The SQL of a session's lease, written once: a lane's lease is {@code sessions.owner_node}, valid while that node is
 * not gone in the {@code nodes} registry. Taking it is one conditional UPDATE (compare-and-set on the lane's row): of
 * two nodes taking one lease, one wins.
 *
 * <p>Where several writers run at once (PostgreSQL, read committed), the take first locks the lane's row
 * ({@link #lock}) and only then runs its UPDATE, as a statement of its own. The UPDATE's condition reads other rows
 * (whether the holder runs a turn of the lane); a single UPDATE that waited for the row lock of a START committing
 * meanwhile would re-check the lane's row but judge those other rows as they were before that START, and take the
 * lease from a holder that had just started a turn. A START takes the lane's row lock too (its own take), so once the
 * lock is held every START of the lane is either committed, and seen by the UPDATE's fresh snapshot, or waits.
 */
final class Leases {
    /** The lane's holder runs or delivers a turn of it now. */
    private static final String BUSY = """
            EXISTS (SELECT 1 FROM turns b WHERE b.session_key = sessions.session_key AND b.owner_node = n.node_id
                    AND b.state IN ('RUNNING', 'AWAITING_DELIVERY'))""";

    private Leases() {
    }

    /**
     * Takes the lease of the lane {@code keyExpr} selects (parameters: node, the key expression's, node, node): the taking
     * node must be running, and the lease free, already its own, or held by a node that is gone, or that drains and
     * neither runs nor delivers a turn of the lane. With {@code fromIdleHolder}, also from a running node that neither
     * runs nor delivers a turn of it (a request held open on the taking node must run there).
     */
    static String take(String keyExpr, boolean fromIdleHolder) {
        String holderKeepsIt = fromIdleHolder ? BUSY : "(n.state = 'running' OR " + BUSY + ")";
        return """
                UPDATE sessions SET owner_node = ?
                WHERE session_key = %s
                  AND EXISTS (SELECT 1 FROM nodes m WHERE m.node_id = ? AND m.state = 'running')
                  AND (owner_node IS NULL OR owner_node = ? OR NOT EXISTS (
                        SELECT 1 FROM nodes n WHERE n.node_id = sessions.owner_node AND n.state <> 'gone' AND %s))"""
                .formatted(keyExpr, holderKeepsIt);
    }

    /**
     * Locks the lane's row that {@code keyExpr} selects before a take (same parameters as the key expression), or null
     * where writes are serial and need no lock ({@code lockForUpdate} empty).
     */
    static String lock(String keyExpr, String lockForUpdate) {
        return lockForUpdate.isEmpty() ? null : "SELECT 1 FROM sessions WHERE session_key = " + keyExpr + lockForUpdate;
    }

    /** Resume-pending, unsuspended lanes whose lease a node that is gone held (parameter: limit), oldest mark first. */
    static final String RESUME_PENDING_OF_GONE_NODES = """
            SELECT session_key FROM sessions
            WHERE resume_pending AND NOT suspended AND owner_node IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = sessions.owner_node AND n.state <> 'gone')
            ORDER BY resume_marked_at, session_key LIMIT ?""";
}
