package dev.herald.store.ops;

import dev.herald.store.jdbc.JdbcConn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** A plain JDBC connection with the stores' statement shapes, for reading: each statement is prepared and closed. */
final class PlainConn extends JdbcConn implements AutoCloseable {
    PlainConn(Connection connection) {
        super(connection);
    }

    Connection jdbc() {
        return connection();
    }

    @Override
    protected PreparedStatement prepare(String sql) throws SQLException {
        return connection().prepareStatement(sql);
    }

    @Override
    protected void release(PreparedStatement statement) throws SQLException {
        statement.close();
    }

    @Override
    public int updateUnlessDuplicate(String sql, Object... args) {
        throw new UnsupportedOperationException("store - a reading connection does not write");
    }

    @Override
    public void close() throws SQLException {
        connection().close();
    }
}
