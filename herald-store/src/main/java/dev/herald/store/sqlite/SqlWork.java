package dev.herald.store.sqlite;

import java.sql.SQLException;

/** A unit of database work run on one connection (inside the writer's transaction, or on a reader). */
@FunctionalInterface
interface SqlWork<T> {
    T run(SqlConn conn) throws SQLException;
}
