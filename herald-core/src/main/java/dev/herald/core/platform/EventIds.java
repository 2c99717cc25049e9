package dev.herald.core.platform;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Herald's ids for inbound events ({@link MessageEvent#eventId()}): UUIDs of version 7 (RFC 9562), the Unix time in
 * milliseconds in the first 48 bits and 74 random bits from a {@link SecureRandom} after it. An id is as hard to guess
 * as before (it is shown to clients: completion ids, webhook answers), and ids made one after another sort by time,
 * so the store's unique index on them grows at its right edge, where concurrent turns share a page, instead of
 * dirtying a random leaf page per turn (about 6% of the pages a new conversation wrote, docs/performance.md).
 */
public final class EventIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private EventIds() {
    }

    public static String next() {
        return next(System.currentTimeMillis()).toString();
    }

    static UUID next(long epochMillis) {
        byte[] r = new byte[10];
        RANDOM.nextBytes(r);
        long high = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | ((r[0] & 0x0FL) << 8) | (r[1] & 0xFFL);
        long low = 0x8000_0000_0000_0000L | (r[2] & 0x3FL) << 56;
        for (int i = 3; i < 10; i++) {
            low |= (r[i] & 0xFFL) << (8 * (9 - i));
        }
        return new UUID(high, low);
    }
}
