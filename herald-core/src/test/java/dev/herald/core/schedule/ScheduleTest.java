package dev.herald.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class ScheduleTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final Instant NOW = Instant.parse("2026-04-18T12:00:00Z"); // 14:00 in Berlin

    @Test
    void every_countsFromItsAnchor() {
        Schedule s = Schedule.parse("every 30m", BERLIN, NOW);
        assertThat(s).isInstanceOf(Schedule.Every.class);
        assertThat(s.nextAfter(NOW)).contains(NOW.plus(Duration.ofMinutes(30)));
        assertThat(s.nextAfter(NOW.plus(Duration.ofMinutes(31)))).contains(NOW.plus(Duration.ofMinutes(60)));
        assertThat(s.text()).isEqualTo("every 30m");
        assertThat(Schedule.parse("every 1h30m", BERLIN, NOW).text()).isEqualTo("every 1h30m");
    }

    @Test
    void every_shorterThanAMinute_isRefused() {
        assertThatThrownBy(() -> Schedule.parse("every 30s", BERLIN, NOW)).hasMessageContaining("too often")
                .hasMessageContaining("1m");
    }

    @Test
    void in_isOneShotFromNow() {
        Schedule s = Schedule.parse("in 20m", BERLIN, NOW);
        assertThat(s.nextAfter(NOW)).contains(NOW.plus(Duration.ofMinutes(20)));
        assertThat(s.nextAfter(NOW.plus(Duration.ofMinutes(20)))).isEmpty();
    }

    @Test
    void at_readsLocalTimesInTheZone_andStoresTheOffset() {
        Schedule s = Schedule.parse("at 2026-12-24T09:00", BERLIN, NOW);
        assertThat(s.nextAfter(NOW)).contains(Instant.parse("2026-12-24T08:00:00Z"));
        assertThat(s.text()).isEqualTo("at 2026-12-24T09:00+01:00");
        assertThat(Schedule.stored(s.text(), BERLIN, NOW)).isEqualTo(s);
        assertThat(Schedule.parse("at 2026-12-24 09:00", BERLIN, NOW).nextAfter(NOW)).contains(Instant.parse("2026-12-24T08:00:00Z"));
        assertThat(Schedule.parse("at 2026-12-24T09:00Z", BERLIN, NOW).nextAfter(NOW)).contains(Instant.parse("2026-12-24T09:00:00Z"));
    }

    @Test
    void atTimeOfDay_isTheNextSuchLocalTime() {
        assertThat(Schedule.parse("at 15:00", BERLIN, NOW).nextAfter(NOW)).contains(Instant.parse("2026-04-18T13:00:00Z"));
        assertThat(Schedule.parse("at 09:00", BERLIN, NOW).nextAfter(NOW)).as("today's has passed")
                .contains(Instant.parse("2026-04-19T07:00:00Z"));
    }

    @Test
    void storedEvery_keepsItsAnchorAcrossARead() {
        Schedule s = Schedule.parse("every 45m", BERLIN, NOW);
        Schedule read = Schedule.stored(s.text(), BERLIN, NOW);
        assertThat(read.nextAfter(NOW.plus(Duration.ofHours(5)))).isEqualTo(s.nextAfter(NOW.plus(Duration.ofHours(5))));
    }

    @Test
    void badForms_sayWhatWorks() {
        assertThatThrownBy(() -> Schedule.parse("", BERLIN, NOW)).hasMessageContaining("every 30m");
        assertThatThrownBy(() -> Schedule.parse("every often", BERLIN, NOW)).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Schedule.parse("at tomorrow", BERLIN, NOW)).hasMessageContaining("not a time");
        assertThatThrownBy(() -> Schedule.zone("Mars/Olympus")).hasMessageContaining("IANA");
    }
}
