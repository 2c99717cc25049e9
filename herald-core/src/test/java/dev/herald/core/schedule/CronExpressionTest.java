package dev.herald.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The 5-field parser and the next occurrence, away from daylight-saving changes (those are in {@link DaylightSavingTest}). */
class CronExpressionTest {
    private static final ZoneId UTC = ZoneOffset.UTC;

    private static Instant next(String cron, String after) {
        return CronExpression.parse(cron).nextAfter(Instant.parse(after), UTC).orElseThrow();
    }

    @Test
    void weekdaysAtNine_fromFridayMorning_nextIsMonday() {
        // 2026-04-17 is a Friday
        assertThat(next("0 9 * * 1-5", "2026-04-17T10:00:00Z")).isEqualTo("2026-04-20T09:00:00Z");
        assertThat(next("0 9 * * 1-5", "2026-04-17T08:59:59Z")).isEqualTo("2026-04-17T09:00:00Z");
    }

    @Test
    void nextAfter_isStrictlyAfter() {
        assertThat(next("0 9 * * *", "2026-04-17T09:00:00Z")).isEqualTo("2026-04-18T09:00:00Z");
    }

    @Test
    void everyMinute_firesEachMinute() {
        List<Instant> times = new ArrayList<>();
        Instant t = Instant.parse("2026-04-17T10:00:30Z");
        for (int i = 0; i < 3; i++) {
            t = CronExpression.parse("* * * * *").nextAfter(t, UTC).orElseThrow();
            times.add(t);
        }
        assertThat(times).containsExactly(Instant.parse("2026-04-17T10:01:00Z"), Instant.parse("2026-04-17T10:02:00Z"),
                Instant.parse("2026-04-17T10:03:00Z"));
    }

    @Test
    void stepsRangesListsAndNames() {
        assertThat(next("*/20 * * * *", "2026-04-17T10:41:00Z")).isEqualTo("2026-04-17T11:00:00Z");
        assertThat(next("10-30/10 8 * * *", "2026-04-17T08:11:00Z")).isEqualTo("2026-04-17T08:20:00Z");
        assertThat(next("0 12 1 jan,JUL *", "2026-04-17T00:00:00Z")).isEqualTo("2026-07-01T12:00:00Z");
        assertThat(next("0 12 * * SUN", "2026-04-17T00:00:00Z")).isEqualTo("2026-04-19T12:00:00Z");
        assertThat(next("0 12 * * 7", "2026-04-17T00:00:00Z")).as("7 is Sunday too").isEqualTo("2026-04-19T12:00:00Z");
        assertThat(next("15/20 * * * *", "2026-04-17T10:56:00Z")).as("a/n runs from a to the end").isEqualTo("2026-04-17T11:15:00Z");
    }

    @Test
    void bothDayFieldsRestricted_eitherMatches() {
        // the 1st of the month or any Monday: from Friday the 17th, Monday the 20th comes first
        assertThat(next("0 0 1 * 1", "2026-04-17T00:00:00Z")).isEqualTo("2026-04-20T00:00:00Z");
        // day of month alone: only the 1st
        assertThat(next("0 0 1 * *", "2026-04-17T00:00:00Z")).isEqualTo("2026-05-01T00:00:00Z");
    }

    @Test
    void leapDay_isFoundYearsAhead() {
        assertThat(next("0 0 29 2 *", "2026-04-17T00:00:00Z")).isEqualTo("2028-02-29T00:00:00Z");
    }

    @Test
    void macros_expand() {
        assertThat(next("@daily", "2026-04-17T10:00:00Z")).isEqualTo("2026-04-18T00:00:00Z");
        assertThat(next("@hourly", "2026-04-17T10:00:00Z")).isEqualTo("2026-04-17T11:00:00Z");
        assertThat(next("@weekly", "2026-04-17T10:00:00Z")).isEqualTo("2026-04-19T00:00:00Z");
    }

    @Test
    void otherZone_matchesLocalTime() {
        Instant n = CronExpression.parse("0 9 * * *").nextAfter(Instant.parse("2026-04-17T00:00:00Z"), ZoneId.of("Asia/Tokyo")).orElseThrow();
        assertThat(n).isEqualTo(Instant.parse("2026-04-18T00:00:00Z"));
    }

    @Test
    void badExpressions_areRefusedNamingTheField() {
        assertThatThrownBy(() -> CronExpression.parse("0 9 * *")).hasMessageContaining("has 4 field(s)").hasMessageContaining("5");
        assertThatThrownBy(() -> CronExpression.parse("60 9 * * *")).hasMessageContaining("minute value 60 is outside 0-59");
        assertThatThrownBy(() -> CronExpression.parse("0 25 * * *")).hasMessageContaining("hour value 25");
        assertThatThrownBy(() -> CronExpression.parse("0 9 * * 5-1")).hasMessageContaining("runs backwards");
        assertThatThrownBy(() -> CronExpression.parse("0 9 * * FOO")).hasMessageContaining("day-of-week").hasMessageContaining("FOO");
        assertThatThrownBy(() -> CronExpression.parse("0 0 30 2 *")).hasMessageContaining("never matches");
        assertThatThrownBy(() -> CronExpression.parse("@often")).hasMessageContaining("unknown macro");
        assertThatThrownBy(() -> CronExpression.parse("0,,5 * * * *")).hasMessageContaining("empty list item");
        assertThatThrownBy(() -> CronExpression.parse("*/0 * * * *")).hasMessageContaining("outside 1-59");
    }
}
