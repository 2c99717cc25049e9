package dev.herald.store.postgres;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Maps the current row of a result set; throws {@link RowDecodeException} when the row holds bad data. */
@FunctionalInterface
interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
}
