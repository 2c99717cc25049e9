package dev.herald.store.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Times as both stores keep them: epoch microseconds (UTC) in SQLite INTEGER and PostgreSQL BIGINT
 * columns, so both hand back the same instants and an export between them needs no conversion.
 */
public final class Micros {
    private static final long PER_SECOND = 1_000_000L;

    private Micros() {
    }

    /** The clock's time at the precision the store keeps, so returned values equal stored ones. */
    public static Instant now(Clock clock) {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    /** The instant in epoch microseconds (sub-microsecond digits dropped). */
    public static long of(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), PER_SECOND), t.getNano() / 1000);
    }

    /** {@link #of}, or null for null. */
    public static Long ofNullable(Instant t) {
        return t == null ? null : of(t);
    }

    /** The instant of a stored value. */
    static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, PER_SECOND), Math.floorMod(micros, PER_SECOND) * 1000);
    }

    /** The column as an instant, or null when it is SQL NULL. */
    static Instant column(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : toInstant(v);
    }
}
