package dev.herald.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Daylight-saving changes in Europe/Berlin, 2026: on 29 March clocks jump from 02:00 (CET, +01) to 03:00 (CEST,
 * +02); on 25 October they go back from 03:00 (CEST) to 02:00 (CET). The rules are in {@link CronExpression}; one-shot
 * times ({@code at}) follow the same rules for a fixed time.
 */
class DaylightSavingTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    /** Every occurrence in [from, to). */
    private static List<Instant> runs(String cron, String from, String to) {
        return runs(new Schedule.Cron(CronExpression.parse(cron), BERLIN), from, to);
    }

    private static List<Instant> runs(Schedule s, String from, String to) {
        List<Instant> out = new ArrayList<>();
        Instant t = Instant.parse(from);
        Instant end = Instant.parse(to);
        while (true) {
            t = s.nextAfter(t).orElseThrow();
            if (!t.isBefore(end)) {
                return out;
            }
            out.add(t);
        }
    }

    @Test
    void springForward_aTimeInTheSkippedHour_firesOnceAtTheJump() {
        // 02:30 does not exist on 29 March; it runs once at 03:00 CEST (01:00Z), and at 02:30 local on the days around it
        assertThat(runs("30 2 * * *", "2026-03-28T00:00:00Z", "2026-03-31T00:00:00Z")).containsExactly(
                Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-30T00:30:00Z"));
    }

    @Test
    void springForward_severalTimesInTheSkippedHour_collapseIntoOneRun() {
        assertThat(runs("*/15 2 * * *", "2026-03-28T23:00:00Z", "2026-03-29T23:00:00Z"))
                .containsExactly(Instant.parse("2026-03-29T01:00:00Z"));
    }

    @Test
    void springForward_anHourlyJob_followsElapsedTime() {
        // 01:00 CET, 03:00 CEST, 04:00 CEST: one run per real hour, none for the hour that does not exist
        assertThat(runs("0 * * * *", "2026-03-28T23:30:00Z", "2026-03-29T02:30:00Z")).containsExactly(
                Instant.parse("2026-03-29T00:00:00Z"), Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-29T02:00:00Z"));
    }

    @Test
    void fallBack_aTimeInTheRepeatedHour_firesOnceAtItsFirstOccurrence() {
        // 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET); only the first runs
        assertThat(runs("30 2 * * *", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z")).containsExactly(
                Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
    }

    @Test
    void fallBack_anHourlyJob_runsInBothRepeatedHours() {
        // 02:00 CEST, 02:00 CET, 03:00 CET: one run per real hour
        assertThat(runs("0 * * * *", "2026-10-24T23:30:00Z", "2026-10-25T02:30:00Z")).containsExactly(
                Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T01:00:00Z"), Instant.parse("2026-10-25T02:00:00Z"));
    }

    @Test
    void aDailyJobOutsideTheChange_keepsItsLocalTime() {
        // 09:00 local is 08:00Z in winter and 07:00Z in summer
        assertThat(runs("0 9 * * *", "2026-03-28T00:00:00Z", "2026-03-30T00:00:00Z"))
                .containsExactly(Instant.parse("2026-03-28T08:00:00Z"), Instant.parse("2026-03-29T07:00:00Z"));
    }

    @Test
    void every_countsElapsedTimeAcrossTheChange() {
        Schedule every = new Schedule.Every(java.time.Duration.ofHours(1), Instant.parse("2026-03-28T23:00:00Z"), BERLIN);
        assertThat(runs(every, "2026-03-28T23:00:00Z", "2026-03-29T02:00:00Z")).containsExactly(
                Instant.parse("2026-03-29T00:00:00Z"), Instant.parse("2026-03-29T01:00:00Z"));
    }

    @Test
    void newYork_springForward_alsoFiresOnceAtTheJump() {
        // 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z)
        Schedule s = new Schedule.Cron(CronExpression.parse("30 2 * * *"), ZoneId.of("America/New_York"));
        assertThat(runs(s, "2026-03-07T12:00:00Z", "2026-03-09T12:00:00Z"))
                .containsExactly(Instant.parse("2026-03-08T07:00:00Z"), Instant.parse("2026-03-09T06:30:00Z"));
    }

    @Test
    void springForward_aOneShotInTheSkippedHour_runsAtTheJump() {
        // 2027-03-28: 02:00 CET jumps to 03:00 CEST (01:00Z); 02:30 does not exist and runs at 03:00 local, not 03:30
        Schedule s = Schedule.parse("at 2027-03-28T02:30", BERLIN, Instant.parse("2027-01-01T00:00:00Z"));

        assertThat(s.nextAfter(Instant.parse("2027-01-01T00:00:00Z"))).contains(Instant.parse("2027-03-28T01:00:00Z"));
        assertThat(s.nextAfter(Instant.parse("2027-03-28T01:00:00Z"))).as("once").isEmpty();
        assertThat(s.text()).isEqualTo("at 2027-03-28T03:00+02:00");
    }

    @Test
    void springForward_aOneShotTimeOfDayInTheSkippedHour_runsAtTheJump() {
        // "at 02:30" written on the Saturday afternoon means Sunday's 02:30, which does not exist
        Schedule s = Schedule.parse("at 02:30", BERLIN, Instant.parse("2027-03-27T14:00:00Z"));

        assertThat(s.nextAfter(Instant.parse("2027-03-27T14:00:00Z"))).contains(Instant.parse("2027-03-28T01:00:00Z"));
    }

    @Test
    void fallBack_aOneShotInTheRepeatedHour_runsAtItsFirstOccurrence() {
        Schedule s = Schedule.parse("at 2026-10-25T02:30", BERLIN, Instant.parse("2026-10-01T00:00:00Z"));

        assertThat(s.nextAfter(Instant.parse("2026-10-01T00:00:00Z"))).contains(Instant.parse("2026-10-25T00:30:00Z"));
    }
}
