package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.Timestamps;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec D: the time helpers freshness rests on. */
class D_TimeHelpersTest {
    static final Instant NOON = Instant.parse("2026-04-18T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    void D1_timestampsAreCoercedFromNumbersDateTimesAndIsoText() {
        long epoch = NOON.getEpochSecond();
        assertThat(Timestamps.coerce(epoch)).contains(NOON);
        assertThat(Timestamps.coerce((double) epoch)).contains(NOON);
        assertThat(Timestamps.coerce(epoch * 1000)).as("milliseconds").contains(NOON);
        assertThat(Timestamps.coerce(Long.toString(epoch))).contains(NOON);
        assertThat(Timestamps.coerce(OffsetDateTime.parse("2026-04-18T12:00:00+00:00"))).contains(NOON);
        assertThat(Timestamps.coerce(Date.from(NOON))).contains(NOON);
        assertThat(Timestamps.coerce("2026-04-18T12:00:00+00:00")).contains(NOON);
        assertThat(Timestamps.coerce("2026-04-18T12:00:00Z")).contains(NOON);
        assertThat(Timestamps.coerce("2026-04-18T14:00:00+02:00")).contains(NOON);
    }

    @Test
    void D1_nothingEmptyGarbageBooleansAndListsGiveNoTimestamp() {
        assertThat(Timestamps.coerce(null)).isEmpty();
        assertThat(Timestamps.coerce("")).isEmpty();
        assertThat(Timestamps.coerce("   ")).isEmpty();
        assertThat(Timestamps.coerce("not a time")).isEmpty();
        assertThat(Timestamps.coerce(true)).isEmpty();
        assertThat(Timestamps.coerce(false)).isEmpty();
        assertThat(Timestamps.coerce(List.of(1, 2))).isEmpty();
    }

    @Test
    void D2_freshMeansAgeAtMostTheWindowAndTheBoundaryIsFresh() {
        Freshness hour = new Freshness(Duration.ofHours(1));
        assertThat(hour.isFresh(NOON.minus(Duration.ofMinutes(30)), NOON)).isTrue();
        assertThat(hour.isFresh(NOON.minus(Duration.ofHours(2)), NOON)).isFalse();
        assertThat(hour.isFresh(NOON.minus(Duration.ofHours(1)), NOON)).as("exactly the window").isTrue();
        assertThat(hour.isFresh(NOON.minus(Duration.ofHours(1)).minusMillis(1), NOON)).isFalse();
    }

    @Test
    void D3_theLastTranscriptTimestampSkipsSessionMetaAndSystemRows() {
        try (Harness h = new Harness(dir)) {
            MutableClock clock = h.clock;
            SessionSource s = Harness.dm("telegram", "1", "u1");
            String sid = h.storage.sessions().getOrCreate(h.key(s), s).sessionId();
            Instant userAt = clock.instant().minus(Duration.ofHours(3));
            h.storage.transcripts().append(sid, TranscriptRow.user("hello", userAt));
            h.storage.transcripts().append(sid, TranscriptRow.meta("{\"title\":\"x\"}", clock.instant()));
            h.storage.transcripts().append(sid, TranscriptRow.system("compressed", clock.instant()));

            Optional<Instant> last = Timestamps.lastTranscriptTimestamp(h.storage.transcripts().load(sid));

            assertThat(last).contains(userAt);
        }
    }
}
