package dev.herald.core.continuity;

import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAccessor;
import java.util.Date;
import java.util.List;
import java.util.Optional;

/** Reading timestamps of mixed provenance, and the last timestamp of a transcript (spec D1, D3). */
public final class Timestamps {
    /** Numbers above this are taken as epoch milliseconds rather than seconds. */
    private static final double MILLIS_THRESHOLD = 10_000_000_000d;

    private Timestamps() {
    }

    /**
     * Coerces a value to an instant: a number (epoch seconds, or milliseconds when above 10^10), a
     * date-time, or an ISO-8601 string (a trailing {@code Z} or an offset; no offset means the system
     * zone). Null, blank or unparseable text, booleans, collections and anything else give empty.
     */
    public static Optional<Instant> coerce(Object value) {
        return switch (value) {
            case null -> Optional.empty();
            case Boolean b -> Optional.empty();
            case Instant i -> Optional.of(i);
            case Date d -> Optional.of(d.toInstant());
            case Number n -> fromEpochNumber(n.doubleValue());
            case TemporalAccessor t -> fromTemporal(t);
            case CharSequence s -> fromText(s.toString().strip());
            default -> Optional.empty();
        };
    }

    private static Optional<Instant> fromTemporal(TemporalAccessor t) {
        return switch (t) {
            case OffsetDateTime o -> Optional.of(o.toInstant());
            case ZonedDateTime z -> Optional.of(z.toInstant());
            case LocalDateTime l -> Optional.of(l.atZone(ZoneId.systemDefault()).toInstant());
            default -> Optional.empty();
        };
    }

    private static Optional<Instant> fromEpochNumber(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return Optional.empty();
        }
        double seconds = v > MILLIS_THRESHOLD ? v / 1000.0 : v;
        long whole = (long) Math.floor(seconds);
        long nanos = Math.round((seconds - whole) * 1_000_000_000d);
        return Optional.of(Instant.ofEpochSecond(whole, Math.min(nanos, 999_999_999L)));
    }

    private static Optional<Instant> fromText(String text) {
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            return fromEpochNumber(Double.parseDouble(text));
        } catch (NumberFormatException notNumeric) {
            // fall through to ISO-8601
        }
        String iso = text.endsWith("Z") || text.endsWith("z") ? text.substring(0, text.length() - 1) + "+00:00" : text;
        try {
            return Optional.of(OffsetDateTime.parse(iso).toInstant());
        } catch (DateTimeParseException noOffset) {
            try {
                return Optional.of(LocalDateTime.parse(iso).atZone(ZoneId.systemDefault()).toInstant());
            } catch (DateTimeParseException garbage) {
                return Optional.empty();
            }
        }
    }

    /**
     * The timestamp of the newest row that is not bookkeeping ({@code session_meta}, {@code system}),
     * read from the raw transcript. Empty when there is no such row, or when that row has no timestamp
     * (the search does not continue past it).
     */
    public static Optional<Instant> lastTranscriptTimestamp(List<TranscriptRow> transcript) {
        if (transcript == null) {
            return Optional.empty();
        }
        for (int i = transcript.size() - 1; i >= 0; i--) {
            TranscriptRow row = transcript.get(i);
            if (row == null || row.role().isBookkeeping()) {
                continue;
            }
            return Optional.ofNullable(row.timestamp());
        }
        return Optional.empty();
    }
}
