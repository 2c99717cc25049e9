package dev.herald.core.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventIdsTest {
    @Test
    void anId_isAVersion7UuidCarryingItsMillisecond() {
        long at = 1_780_000_000_123L;

        UUID id = EventIds.next(at);

        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(at);
        assertThat(UUID.fromString(EventIds.next())).satisfies(u -> assertThat(u.version()).isEqualTo(7));
    }

    @Test
    void idsOfLaterMilliseconds_sortAfter_asTextToo_andNoTwoAreAlike() {
        List<String> ids = new ArrayList<>();
        for (long ms = 1_780_000_000_000L; ms < 1_780_000_000_000L + 2_000; ms += 7) {
            ids.add(EventIds.next(ms).toString());
        }
        assertThat(ids).isSorted();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 50_000; i++) {
            assertThat(seen.add(EventIds.next(1_780_000_000_000L).toString())).as("a repeated id").isTrue();
        }
    }

    @Test
    void theRandomPart_variesInEveryBitItOwns() {
        long or = 0;
        long and = -1;
        for (int i = 0; i < 2_000; i++) {
            UUID u = EventIds.next(0);
            long bits = u.getLeastSignificantBits() & 0x3FFF_FFFF_FFFF_FFFFL;
            or |= bits;
            and &= bits;
        }
        assertThat(or).as("every one of the 62 random low bits is set in some id").isEqualTo(0x3FFF_FFFF_FFFF_FFFFL);
        assertThat(and).as("and clear in some id").isZero();
    }
}
