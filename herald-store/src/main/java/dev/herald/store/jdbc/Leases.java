package dev.herald.store.jdbc;

/**
 * The SQL of a session's lease, written once: a lane's lease is {@code sessions.owner_node}, valid while that node is
 * not gone in the {@code nodes} registry. Taking it is one conditional UPDATE (compare-and-set on the lane's row): of
 * two nodes taking one lease, one wins.
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

    /** Resume-pending, unsuspended lanes whose lease a node that is gone held (parameter: limit), oldest mark first. */
    static final String RESUME_PENDING_OF_GONE_NODES = """
            SELECT session_key FROM sessions
            WHERE resume_pending AND NOT suspended AND owner_node IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = sessions.owner_node AND n.state <> 'gone')
            ORDER BY resume_marked_at, session_key LIMIT ?""";
}
