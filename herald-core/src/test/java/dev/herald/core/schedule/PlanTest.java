package dev.herald.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Which occurrence runs when a job is due, on time or after missed ones, under each misfire policy. */
class PlanTest {
    private static final Duration GRACE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final Schedule EVERY_TEN = new Schedule.Cron(CronExpression.parse("*/10 * * * *"), ZoneOffset.UTC);
    private static final Instant T0 = Instant.parse("2026-04-18T12:00:00Z");

    @Test
    void onTime_runsThatOccurrence() {
        Plan p = Plan.of(EVERY_TEN, T0, T0.plusSeconds(2), GRACE, Misfire.SKIP, HOUR);
        assertThat(p.kind()).isEqualTo(JobRun.Kind.ON_TIME);
        assertThat(p.key()).isEqualTo(T0);
        assertThat(p.next()).isEqualTo(T0.plus(Duration.ofMinutes(10)));
    }

    @Test
    void threeMissedTicks_runOnce_oneCatchUpForTheLatest() {
        Instant now = Instant.parse("2026-04-18T12:25:00Z"); // 12:00, 12:10 and 12:20 passed
        Plan p = Plan.of(EVERY_TEN, T0, now, GRACE, Misfire.RUN_ONCE, HOUR);
        assertThat(p.kind()).isEqualTo(JobRun.Kind.CATCH_UP);
        assertThat(p.due()).isEqualTo(3);
        assertThat(p.key()).isEqualTo(Instant.parse("2026-04-18T12:20:00Z"));
        assertThat(p.next()).isEqualTo(Instant.parse("2026-04-18T12:30:00Z"));
    }

    @Test
    void threeMissedTicks_skip_nothingRunsAndTheNextTimeIsAfterNow() {
        Instant now = Instant.parse("2026-04-18T12:25:00Z");
        Plan p = Plan.of(EVERY_TEN, T0, now, GRACE, Misfire.SKIP, HOUR);
        assertThat(p.runs()).isFalse();
        assertThat(p.outcome()).isEqualTo("skipped");
        assertThat(p.due()).isEqualTo(3);
        assertThat(p.next()).isEqualTo(Instant.parse("2026-04-18T12:30:00Z"));
    }

    @Test
    void missedTicks_butTheLatestIsOnTime_runsIt() {
        Instant now = Instant.parse("2026-04-18T12:20:30Z");
        Plan p = Plan.of(EVERY_TEN, T0, now, GRACE, Misfire.SKIP, HOUR);
        assertThat(p.kind()).isEqualTo(JobRun.Kind.ON_TIME);
        assertThat(p.key()).isEqualTo(Instant.parse("2026-04-18T12:20:00Z"));
    }

    @Test
    void runOnce_pastTheCatchUpWindow_isMissed() {
        Schedule daily = new Schedule.Cron(CronExpression.parse("0 9 * * *"), ZoneOffset.UTC);
        Instant nine = Instant.parse("2026-04-18T09:00:00Z");
        Plan p = Plan.of(daily, nine, Instant.parse("2026-04-18T11:00:00Z"), GRACE, Misfire.RUN_ONCE, HOUR);
        assertThat(p.runs()).isFalse();
        assertThat(p.outcome()).isEqualTo("missed");
        assertThat(p.next()).isEqualTo(Instant.parse("2026-04-19T09:00:00Z"));
    }

    @Test
    void aWeekDown_everyMinuteJob_decidesOnceWithoutCountingEachMinute() {
        Schedule minutely = new Schedule.Cron(CronExpression.parse("* * * * *"), ZoneOffset.UTC);
        Instant now = T0.plus(Duration.ofDays(7)).plusSeconds(30);
        Plan p = Plan.of(minutely, T0, now, GRACE, Misfire.RUN_ONCE, HOUR);
        assertThat(p.kind()).isEqualTo(JobRun.Kind.ON_TIME).as("the latest minute is within the grace");
        assertThat(p.key()).isEqualTo(T0.plus(Duration.ofDays(7)));
        assertThat(p.due()).isEqualTo(Plan.MANY);
        assertThat(p.next()).isEqualTo(T0.plus(Duration.ofDays(7)).plusSeconds(60));
    }

    @Test
    void oneShot_afterItsTime_hasNoNext() {
        Schedule once = new Schedule.Once(T0, ZoneOffset.UTC);
        Plan p = Plan.of(once, T0, T0.plusSeconds(5), GRACE, Misfire.RUN_ONCE, HOUR);
        assertThat(p.runs()).isTrue();
        assertThat(p.next()).isNull();
    }
}
