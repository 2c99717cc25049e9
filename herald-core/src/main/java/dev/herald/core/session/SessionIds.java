package dev.herald.core.session;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;

/** Makes transcript session ids: {@code 20260418_120000_1a2b3c4d} (UTC time, then 8 random hex digits). */
public final class SessionIds {
    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss").withZone(ZoneOffset.UTC);

    private SessionIds() {
    }

    public static String newId(Instant now) {
        return FORMAT.format(now) + "_" + String.format("%08x", ThreadLocalRandom.current().nextInt());
    }
}
