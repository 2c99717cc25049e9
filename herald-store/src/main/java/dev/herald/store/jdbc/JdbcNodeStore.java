package dev.herald.store.jdbc;

import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.cluster.NodeRecord;
import dev.herald.core.cluster.NodeState;
import dev.herald.core.cluster.NodeStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The node registry ({@code nodes}), written once for both databases. Every time comes from the database's clock
 * ({@link Dialect#databaseNow()}: PostgreSQL's {@code now()}; SQLite's nodes share one host, whose clock is the
 * store's), read inside the same transaction that uses it, so no two nodes ever compare their own clocks. Every
 * change of a node's state is a conditional UPDATE: of two nodes that judge a third dead, one marks it gone.
 *
 * <p>Rows of nodes gone for more than {@link #KEEP_GONE} are removed when a node registers; a turn or session that
 * still names such a node counts as owned by nobody alive, as it would while the row existed.
 */
public final class JdbcNodeStore<C extends JdbcConn> implements NodeStore {
    static final Duration KEEP_GONE = Duration.ofDays(7);
    private static final String COLUMNS = """
            n.node_id, n.state, n.host, n.pid, n.process_key, n.started_at, n.heartbeat_at, n.expires_at, n.successor_of,
            (SELECT COUNT(*) FROM sessions s WHERE s.owner_node = n.node_id) AS sessions,
            (SELECT COUNT(*) FROM turns t WHERE t.state = 'RUNNING' AND t.owner_node = n.node_id) AS running""";
    private static final String REGISTER = """
            INSERT INTO nodes (node_id, state, host, pid, process_key, started_at, heartbeat_at, expires_at, successor_of)
            VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (node_id) DO UPDATE SET state = 'running', host = excluded.host, pid = excluded.pid,
                process_key = excluded.process_key, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,
                expires_at = excluded.expires_at, successor_of = excluded.successor_of, ended_at = NULL""";
    private static final String HEARTBEAT = "UPDATE nodes SET heartbeat_at = ?, expires_at = ? WHERE node_id = ? AND state <> 'gone'";
    private static final String MOVE = "UPDATE nodes SET state = ? WHERE node_id = ? AND state = ?";
    private static final String GONE = "UPDATE nodes SET state = 'gone', ended_at = ? WHERE node_id = ? AND state <> 'gone'";
    /** Nodes not gone whose lease ran out, through the partial index nodes_live. */
    public static final String EXPIRED = "SELECT " + COLUMNS + " FROM nodes n WHERE n.state <> 'gone' AND n.expires_at < ?";

    private final Transactions<C> tx;
    private final Dialect dialect;
    private final Clock clock;

    public JdbcNodeStore(Transactions<C> tx, Dialect dialect, Clock clock) {
        this.tx = tx;
        this.dialect = dialect;
        this.clock = clock;
    }

    /** The database's clock, in epoch microseconds, on the connection of the transaction that uses it. */
    private long now(JdbcConn c) throws SQLException {
        return dialect.databaseNow().isEmpty() ? Micros.of(clock.instant()) : c.scalar(dialect.databaseNow());
    }

    private static long micros(Duration d) {
        return Math.multiplyExact(d.toMillis(), 1000L);
    }

    @Override
    public NodeRecord register(NodeIdentity me, Duration lease, String successorOf) {
        Objects.requireNonNull(me, "me");
        requirePositive(lease);
        return tx.write("node " + me.id(), c -> {
            long now = now(c);
            c.update("DELETE FROM nodes WHERE state = 'gone' AND ended_at < ?", now - micros(KEEP_GONE));
            c.update(REGISTER, me.id(), me.host(), me.pid(), me.processKey(), now, now, now + micros(lease), successorOf);
            return one(c, me.id());
        });
    }

    @Override
    public boolean heartbeat(String nodeId, Duration lease) {
        Objects.requireNonNull(nodeId, "nodeId");
        requirePositive(lease);
        return tx.write("node " + nodeId, c -> {
            long now = now(c);
            return c.update(HEARTBEAT, now, now + micros(lease), nodeId) == 1;
        });
    }

    @Override
    public boolean move(String nodeId, NodeState from, NodeState to) {
        Objects.requireNonNull(nodeId, "nodeId");
        if (to == NodeState.GONE) {
            throw new IllegalArgumentException("store - a node is marked gone with markGone, not moved there");
        }
        return tx.write("node " + nodeId, c -> c.update(MOVE, to.code(), nodeId, from.code()) == 1);
    }

    @Override
    public boolean markGone(String nodeId, boolean onlyIfExpired) {
        Objects.requireNonNull(nodeId, "nodeId");
        return tx.write("node " + nodeId, c -> {
            long now = now(c);
            return onlyIfExpired ? c.update(GONE + " AND expires_at < ?", now, nodeId, now) == 1 : c.update(GONE, now, nodeId) == 1;
        });
    }

    @Override
    public List<String> markGoneExcept(Set<String> keep) {
        return tx.write("nodes", c -> {
            long now = now(c);
            List<String> gone = new ArrayList<>();
            for (String id : c.list("SELECT node_id FROM nodes WHERE state <> 'gone' ORDER BY node_id", rs -> rs.getString(1))) {
                if (!keep.contains(id) && c.update(GONE, now, id) == 1) {
                    gone.add(id);
                }
            }
            return gone;
        });
    }

    @Override
    public List<NodeRecord> expired() {
        return tx.read("nodes", c -> c.list(EXPIRED, JdbcNodeStore::decode, now(c)));
    }

    @Override
    public List<NodeRecord> list(int recentGone) {
        return tx.read("nodes", c -> {
            List<NodeRecord> out = new ArrayList<>(c.list("SELECT " + COLUMNS + " FROM nodes n WHERE n.state <> 'gone' ORDER BY n.started_at DESC",
                    JdbcNodeStore::decode));
            if (recentGone > 0) {
                out.addAll(c.list("SELECT " + COLUMNS + " FROM nodes n WHERE n.state = 'gone' ORDER BY n.started_at DESC LIMIT ?",
                        JdbcNodeStore::decode, recentGone));
            }
            return out;
        });
    }

    /** Takes a platform's connection lease (parameters: platform, node, time, node): free, own, or its holder not running. */
    private static final String TAKE_PLATFORM = """
            INSERT INTO platform_leases (platform, node_id, taken_at)
            SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM nodes m WHERE m.node_id = ? AND m.state = 'running')
            ON CONFLICT (platform) DO UPDATE SET node_id = excluded.node_id, taken_at = excluded.taken_at
            WHERE platform_leases.node_id = excluded.node_id OR NOT EXISTS (
                SELECT 1 FROM nodes n WHERE n.node_id = platform_leases.node_id AND n.state = 'running')""";

    @Override
    public boolean takePlatform(String platform, String node) {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(node, "node");
        return tx.write("platform " + platform, c -> c.update(TAKE_PLATFORM, platform, node, now(c), node) == 1);
    }

    @Override
    public boolean releasePlatform(String platform, String node) {
        return tx.write("platform " + platform, c -> c.update("DELETE FROM platform_leases WHERE platform = ? AND node_id = ?", platform,
                node) == 1);
    }

    @Override
    public java.util.Map<String, String> platformHolders() {
        return tx.read("platform leases", c -> {
            java.util.Map<String, String> out = new java.util.TreeMap<>();
            for (String[] row : c.list("SELECT platform, node_id FROM platform_leases", rs -> new String[] {rs.getString(1), rs.getString(2)})) {
                out.put(row[0], row[1]);
            }
            return out;
        });
    }

    @Override
    public Instant now() {
        return tx.read("the database's clock", c -> Micros.toInstant(now(c)));
    }

    private static NodeRecord one(JdbcConn c, String id) throws SQLException {
        return c.one("SELECT " + COLUMNS + " FROM nodes n WHERE n.node_id = ?", JdbcNodeStore::decode, id).orElseThrow();
    }

    private static NodeRecord decode(ResultSet rs) throws SQLException {
        return new NodeRecord(rs.getString("node_id"), NodeState.of(rs.getString("state")), rs.getString("host"), rs.getLong("pid"),
                rs.getString("process_key"), Micros.column(rs, "started_at"), Micros.column(rs, "heartbeat_at"),
                Micros.column(rs, "expires_at"), rs.getString("successor_of"), rs.getInt("sessions"), rs.getInt("running"));
    }

    private static void requirePositive(Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("store - a node's lease must be positive, was " + lease);
        }
    }
}
