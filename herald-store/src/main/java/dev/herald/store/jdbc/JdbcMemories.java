package dev.herald.store.jdbc;

import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The users' long-term memories ({@code memories}) in SQL both databases understand. Every statement names the owner
 * in its WHERE clause, so an id of another owner's row changes nothing; the {@code (owner, id)} index serves each one.
 */
public final class JdbcMemories<C extends JdbcConn> implements Memories {
    private static final String COLUMNS = "id, owner, text, created_at, source, status";

    private final Transactions<C> tx;

    public JdbcMemories(Transactions<C> tx) {
        this.tx = tx;
    }

    @Override
    public Memory add(String owner, String text, String source, Memory.Status status, Instant at) {
        String fact = Memories.check(owner, text);
        long id = tx.write("memory of " + owner, c -> c.one("INSERT INTO memories (owner, text, created_at, source, status) "
                + "VALUES (?, ?, ?, ?, ?) RETURNING id", rs -> rs.getLong(1), owner, fact, Micros.of(at), source, status.wire()).orElseThrow());
        return new Memory(id, owner, fact, at, source, status);
    }

    @Override
    public List<Memory> list(String owner, boolean withPending, int limit) {
        return tx.read("memories of " + owner, c -> c.list("SELECT " + COLUMNS + " FROM memories WHERE owner = ?"
                + (withPending ? "" : " AND status = 'active'") + " ORDER BY id DESC LIMIT ?", JdbcMemories::memory, owner, Math.max(0, limit)));
    }

    @Override
    public int count(String owner) {
        long n = tx.read("memories of " + owner, c -> c.scalar("SELECT COUNT(*) FROM memories WHERE owner = ?", owner));
        return (int) n;
    }

    @Override
    public boolean forget(String owner, long id) {
        return tx.write("memory of " + owner, c -> c.update("DELETE FROM memories WHERE owner = ? AND id = ?", owner, id)) == 1;
    }

    @Override
    public boolean approve(String owner, long id) {
        return tx.write("memory of " + owner, c -> c.update(
                "UPDATE memories SET status = 'active' WHERE owner = ? AND id = ? AND status = 'pending'", owner, id)) == 1;
    }

    @Override
    public int purge(String owner) {
        return tx.write("memories of " + owner, c -> c.update("DELETE FROM memories WHERE owner = ?", owner));
    }

    @Override
    public int reassign(String from, String to) {
        return tx.write("memories of " + from, c -> c.update("UPDATE memories SET owner = ? WHERE owner = ?", to, from));
    }

    private static Memory memory(ResultSet rs) throws SQLException {
        return new Memory(rs.getLong("id"), rs.getString("owner"), rs.getString("text"), Micros.column(rs, "created_at"),
                rs.getString("source"), Memory.Status.of(rs.getString("status")));
    }
}
