package dev.herald.store.postgres;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Times as stored: epoch microseconds (UTC) in BIGINT columns, exactly as the SQLite store keeps them,
 * so both stores hand back the same instants and a later export between them needs no conversion.
 */
final class Micros {
    private static final long PER_SECOND = 1_000_000L;

    private Micros() {
    }

    /** The clock's time at the precision the store keeps, so returned values equal stored ones. */
    static Instant now(Clock clock) {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    static long of(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), PER_SECOND), t.getNano() / 1000);
    }

    static Long ofNullable(Instant t) {
        return t == null ? null : of(t);
    }

    static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, PER_SECOND), Math.floorMod(micros, PER_SECOND) * 1000);
    }

    /** The column as an instant, or null when it is SQL NULL. */
    static Instant column(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : toInstant(v);
    }
}
