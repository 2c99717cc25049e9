package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobRun;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.ScheduleMetrics;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The scheduler on a real store, with the clock moved by hand: occurrences are claimed in the store and
 * handed to a sink that does what the gateway's admission does with them (the user check, then the durable
 * turn with its dedupe). What counts is the turns stored: one per occurrence, never two.
 */
public abstract class SchedulerContract extends ScheduleStoreContract {

    /** The gateway's inbound side as far as scheduling sees it: refuse unknown users, else store the turn once. */
    protected static final class TurnSink implements InboundSink {
        final Storage storage;
        final Set<String> refusedUsers = ConcurrentHashMap.newKeySet();
        final List<MessageEvent> accepted = new CopyOnWriteArrayList<>();
        final List<MessageEvent> duplicates = new CopyOnWriteArrayList<>();

        TurnSink(Storage storage) {
            this.storage = storage;
        }

        @Override
        public Admission accept(MessageEvent event) {
            if (refusedUsers.contains(event.source().userId())) {
                return Admission.REFUSED;
            }
            if (storage.turns().receive(SessionKey.of(event.source()), event).isEmpty()) {
                duplicates.add(event);
                return Admission.DUPLICATE;
            }
            accepted.add(event);
            return Admission.ACCEPTED;
        }

        @Override
        public void connectionChanged(Platform platform, ConnectionState state, String detail) {
        }
    }

    /** Counts what the scheduler reports. */
    protected static final class Counts implements ScheduleMetrics {
        final List<String> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public void run(String job, String outcome) {
            outcomes.add(job + ":" + outcome);
        }
    }

    protected TurnSink sink;
    protected Counts counts = new Counts();

    protected final Scheduler scheduler() {
        sink = new TurnSink(storage);
        return new Scheduler(storage.schedules(), sink, clock, counts, Scheduler.Settings.defaults());
    }

    /** Every turn stored for a scheduled occurrence, in any state. */
    protected final List<TurnRecord> scheduledTurns(Storage s) {
        List<TurnRecord> out = new ArrayList<>();
        for (TurnState st : TurnState.values()) {
            s.turns().inState(st, 10_000).stream().filter(t -> t.origin() == MessageEvent.Origin.SCHEDULE).forEach(out::add);
        }
        return out;
    }

    /** Runs and delivers every scheduled turn still waiting, as the gateway would. */
    protected final void answerScheduledTurns() {
        for (TurnRecord t : scheduledTurns(storage)) {
            if (t.state() == TurnState.RECEIVED) {
                runAndDeliver(t);
            }
        }
    }

    @Test
    void aJob_firesOncePerTick_howeverOftenTheSchedulerLooks() {
        Job job = job("minutely", "* * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Scheduler scheduler = scheduler();

        for (int minute = 0; minute < 3; minute++) {
            clock.set(job.nextRunAt().plus(Duration.ofMinutes(minute)));
            for (int look = 0; look < 5; look++) {
                scheduler.tick();
                clock.advance(Duration.ofSeconds(7));
            }
            answerScheduledTurns();
        }

        assertThat(scheduledTurns(storage)).hasSize(3);
        assertThat(sink.accepted).extracting(MessageEvent::messageId).doesNotHaveDuplicates();
        assertThat(sink.accepted.getFirst().text()).startsWith("[Scheduled task minutely (* * * * *), due ").endsWith("] say hello");
        assertThat(sink.accepted.getFirst().source()).isEqualTo(job.source());
    }

    @Test
    void aRestartAcrossADueTime_firesOnce_notZeroNotTwice() {
        Job job = job("daily", "0 13 * * *", Misfire.RUN_ONCE); // the clock is at 12:00
        schedules().create(job);
        scheduler().tick();
        assertThat(scheduledTurns(storage)).isEmpty();

        // down from 12:30 to 13:20: the 13:00 run is owed
        clock.set(Instant.parse("2026-04-18T13:20:00Z"));
        reopen();
        Scheduler afterRestart = scheduler().start();
        afterRestart.tick();
        afterRestart.close();
        reopen();
        Scheduler afterSecondRestart = scheduler().start();
        afterSecondRestart.tick();
        afterSecondRestart.close();

        assertThat(scheduledTurns(storage)).singleElement().satisfies(t -> assertThat(t.platformMessageId())
                .isEqualTo(JobRun.messageId("daily", Instant.parse("2026-04-18T13:00:00Z"))));
        assertThat(schedules().find("daily").orElseThrow().nextRunAt()).isEqualTo(Instant.parse("2026-04-19T13:00:00Z"));
    }

    @Test
    void threeMissedTicks_runOnceCatchesUpOnce_skipRunsNothing() {
        Job once = job("once", "*/10 * * * *", Misfire.RUN_ONCE);
        Job skip = job("skip", "*/10 * * * *", Misfire.SKIP);
        schedules().create(once);
        schedules().create(skip);
        Scheduler scheduler = scheduler();

        clock.set(once.nextRunAt().plus(Duration.ofMinutes(25))); // 12:10, 12:20 and 12:30 passed unseen
        scheduler.tick();
        scheduler.tick();

        assertThat(scheduledTurns(storage)).extracting(t -> t.source().userId() + "/" + t.platformMessageId())
                .containsExactly("u1/" + JobRun.messageId("once", Instant.parse("2026-04-18T12:30:00Z")));
        assertThat(schedules().find("skip").orElseThrow().lastOutcome()).isEqualTo("skipped");
        assertThat(schedules().find("skip").orElseThrow().nextRunAt()).isEqualTo(Instant.parse("2026-04-18T12:40:00Z"));
        assertThat(schedules().find("once").orElseThrow().nextRunAt()).isEqualTo(Instant.parse("2026-04-18T12:40:00Z"));
        assertThat(counts.outcomes).contains("skip:skipped");
    }

    @Test
    void aClaimCutOffBeforeItsSubmission_isSubmittedOnceAtTheNextStart() {
        Job job = job("cut", "*/5 * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Instant at = job.nextRunAt();
        clock.set(at.plusSeconds(1));
        // the previous process claimed the occurrence and died before handing it to the gateway
        schedules().claim("cut", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));

        reopen();
        scheduler().start().close();

        assertThat(scheduledTurns(storage)).singleElement()
                .satisfies(t -> assertThat(t.platformMessageId()).isEqualTo(JobRun.messageId("cut", at)));
        assertThat(schedules().runs("cut", 5)).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo(JobRun.State.SUBMITTED));
    }

    @Test
    void aClaimWhoseTurnWasStoredButNotMarked_isADuplicateAtTheNextStart_notASecondTurn() {
        Job job = job("half", "*/5 * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Instant at = job.nextRunAt();
        clock.set(at.plusSeconds(1));
        schedules().claim("half", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        storeTurnOf(job, at); // the gateway stored the turn; the process died before the occurrence was marked

        reopen();
        scheduler().start().close();

        assertThat(scheduledTurns(storage)).hasSize(1);
        assertThat(sink.duplicates).hasSize(1);
        assertThat(schedules().runs("half", 5)).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo(JobRun.State.SUBMITTED));
    }

    @Test
    void twoSchedulersOnOneDatabase_fireEachOccurrenceOnce() throws Exception {
        Job job = job("shared", "* * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Storage second = open(dir, clock);
        try {
            TurnSink sinkA = new TurnSink(storage);
            TurnSink sinkB = new TurnSink(second);
            Scheduler a = new Scheduler(storage.schedules(), sinkA, clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults());
            Scheduler b = new Scheduler(second.schedules(), sinkB, clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults());
            int minutes = 10;
            for (int m = 0; m < minutes; m++) {
                clock.set(job.nextRunAt().plus(Duration.ofMinutes(m)).plusMillis(300));
                Together.run(4, i -> i % 2 == 0 ? a.tick() : b.tick());
                answerScheduledTurns();
            }

            assertThat(sinkA.accepted.size() + sinkB.accepted.size()).isEqualTo(minutes);
            assertThat(sinkA.duplicates).isEmpty();
            assertThat(sinkB.duplicates).isEmpty();
            List<TurnRecord> turns = scheduledTurns(second);
            assertThat(turns).hasSize(minutes);
            assertThat(turns).extracting(TurnRecord::platformMessageId).doesNotHaveDuplicates();
            assertThat(schedules().runs("shared", 100)).hasSize(minutes);
        } finally {
            second.close();
        }
    }

    @Test
    void aRemovedUsersJob_isRefusedAtEveryRun_andNothingIsStored() {
        Job job = job("theirs", "* * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Scheduler scheduler = scheduler();
        sink.refusedUsers.add("u1");

        clock.set(job.nextRunAt());
        scheduler.tick();
        clock.advance(Duration.ofMinutes(1));
        scheduler.tick();

        assertThat(scheduledTurns(storage)).isEmpty();
        assertThat(schedules().find("theirs").orElseThrow().lastOutcome()).isEqualTo("refused");
        assertThat(counts.outcomes).containsExactly("theirs:refused", "theirs:refused");
    }

    @Test
    void aRunThatHasNotEnded_makesTheNextOccurrenceSkip() {
        Job job = job("slow", "* * * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Scheduler scheduler = scheduler();
        clock.set(job.nextRunAt());
        scheduler.tick();
        TurnRecord first = scheduledTurns(storage).getFirst();

        clock.advance(Duration.ofMinutes(1));
        scheduler.tick();
        assertThat(scheduledTurns(storage)).hasSize(1);
        assertThat(schedules().find("slow").orElseThrow().lastOutcome()).isEqualTo("skipped");

        runAndDeliver(first);
        clock.advance(Duration.ofMinutes(1));
        scheduler.tick();
        assertThat(scheduledTurns(storage)).hasSize(2);
        assertThat(counts.outcomes).contains("slow:ok");
    }

    @Test
    void runNow_firesOutsideTheSchedule_andLeavesTheNextRunAlone() {
        Job job = job("manual", "0 9 * * *", Misfire.RUN_ONCE);
        schedules().create(job);
        Scheduler scheduler = scheduler();

        assertThat(scheduler.runNow("manual")).contains(Admission.ACCEPTED);
        assertThat(scheduler.runNow("nope")).isEmpty();

        assertThat(scheduledTurns(storage)).singleElement().satisfies(t -> assertThat(t.text()).contains("run now by an operator"));
        assertThat(schedules().find("manual").orElseThrow().nextRunAt()).isEqualTo(job.nextRunAt());
    }

    @Test
    void aOneShotJob_runsOnceAndIsDone() {
        Job job = job("once", "in 5m", Misfire.RUN_ONCE);
        schedules().create(job);
        Scheduler scheduler = scheduler();

        clock.advance(Duration.ofMinutes(5));
        scheduler.tick();
        clock.advance(Duration.ofDays(1));
        scheduler.tick();

        assertThat(scheduledTurns(storage)).hasSize(1);
        assertThat(schedules().find("once").orElseThrow().status()).isEqualTo("done");
    }
}
