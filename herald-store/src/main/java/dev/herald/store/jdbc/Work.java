package dev.herald.store.jdbc;

import java.sql.SQLException;

/** A unit of database work run on one connection (inside a write transaction, or on a reader). */
@FunctionalInterface
public interface Work<C extends JdbcConn, T> {
    T run(C conn) throws SQLException;
}
