package dev.herald.store.postgres;

import java.sql.SQLException;

/** A unit of database work run inside one transaction on one connection. */
@FunctionalInterface
interface PgWork<T> {
    T run(PgConn conn) throws SQLException;
}
