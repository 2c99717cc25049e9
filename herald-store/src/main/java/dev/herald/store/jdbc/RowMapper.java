package dev.herald.store.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps the current row of a result set; throws {@link RowDecodeException} when the row holds bad data. */
@FunctionalInterface
public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
}
