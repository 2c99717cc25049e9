package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobRun;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.schedule.ScheduleStore;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The behaviour of {@link ScheduleStore}, for every store implementation. */
public abstract class ScheduleStoreContract extends StorageContract {

    protected final ScheduleStore schedules() {
        return storage.schedules();
    }

    /** A job of chat {@code 1} (user u1) on {@code schedule}, due next by it from the clock's now. */
    protected final Job job(String id, String schedule, Misfire misfire) {
        return job(id, schedule, misfire, dm("1"));
    }

    protected final Job job(String id, String schedule, Misfire misfire, SessionSource source) {
        Instant now = clock.instant();
        Schedule s = Schedule.parse(schedule, ZoneOffset.UTC, now);
        return new Job(id, "say hello", s, source, misfire, Duration.ofHours(1), true, Definer.CHAT, "loopback user u1", now, now,
                s.nextAfter(now).orElseThrow(), null, null, null);
    }

    /** Cut-off runs waiting for their resume are waited for an hour (the gateway's default freshness window). */
    protected final Instant resumeSince() {
        return clock.instant().minus(Duration.ofHours(1));
    }

    protected static JobRun claimed(Job job, Instant at, Instant now) {
        return new JobRun(job.id(), at, JobRun.Kind.ON_TIME, JobRun.State.CLAIMED, job.platform(), JobRun.messageId(job.id(), at), null,
                now, now);
    }

    @Test
    void create_thenFindAfterReopen_givesTheSameJob() {
        Job job = job("standup", "0 9 * * 1-5", Misfire.SKIP);
        schedules().create(job);

        reopen();

        assertThat(schedules().find("standup")).contains(job);
        assertThat(schedules().list()).containsExactly(job);
    }

    @Test
    void create_everyJob_keepsItsAnchorAcrossAReopen() {
        clock.advance(Duration.ofSeconds(17));
        Job job = job("poll", "every 45m", Misfire.RUN_ONCE);
        schedules().create(job);

        reopen();

        Job read = schedules().find("poll").orElseThrow();
        Instant later = clock.instant().plus(Duration.ofHours(7));
        assertThat(read.schedule().nextAfter(later)).isEqualTo(job.schedule().nextAfter(later));
    }

    @Test
    void create_sameIdTwice_isRefusedAndTheFirstIsKept() {
        schedules().create(job("a", "0 9 * * *", Misfire.SKIP));

        assertThatThrownBy(() -> schedules().create(job("a", "0 10 * * *", Misfire.SKIP))).hasMessageContaining("exists already");
        assertThat(schedules().find("a").orElseThrow().schedule().text()).isEqualTo("0 9 * * *");
    }

    @Test
    void due_listsEnabledJobsWhoseTimeHasCome() {
        Job due = job("due", "*/5 * * * *", Misfire.SKIP);
        Job later = job("later", "0 23 * * *", Misfire.SKIP);
        Job paused = job("paused", "*/5 * * * *", Misfire.SKIP);
        schedules().create(due);
        schedules().create(later);
        schedules().create(paused);
        schedules().setEnabled("paused", false, paused.nextRunAt(), clock.instant());

        clock.advance(Duration.ofMinutes(5));

        assertThat(schedules().due(clock.instant(), 10)).extracting(Job::id).containsExactly("due");
    }

    @Test
    void claim_isACompareAndSet_theSecondClaimOfTheSameTimeChangesNothing() {
        Job job = job("j", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        clock.set(at);
        Instant next = at.plus(Duration.ofMinutes(5));

        assertThat(schedules().claim("j", at, next, claimed(job, at, at))).isTrue();
        assertThat(schedules().claim("j", at, next.plus(Duration.ofMinutes(5)), claimed(job, at, at))).isFalse();

        Job after = schedules().find("j").orElseThrow();
        assertThat(after.nextRunAt()).isEqualTo(next);
        assertThat(after.lastRunAt()).isEqualTo(at);
        assertThat(after.lastOutcome()).isEqualTo("started");
        assertThat(schedules().runs("j", 10)).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(JobRun.State.CLAIMED);
            assertThat(r.messageId()).isEqualTo("schedule:j:" + at.toEpochMilli());
        });
    }

    @Test
    void claim_ofManyThreadsAtOnce_exactlyOneWins() throws Exception {
        Job job = job("race", "* * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();

        List<Boolean> won = Together.run(16, i -> schedules().claim("race", at, at.plusSeconds(60), claimed(job, at, at)));

        assertThat(won).filteredOn(w -> w).hasSize(1);
        assertThat(schedules().runs("race", 10)).hasSize(1);
    }

    @Test
    void claim_ofAPausedJob_isRefused() {
        Job job = job("p", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        schedules().setEnabled("p", false, job.nextRunAt(), clock.instant());

        assertThat(schedules().claim("p", job.nextRunAt(), null, claimed(job, job.nextRunAt(), clock.instant()))).isFalse();
    }

    @Test
    void claim_aDecisionNotToRun_recordsItsOutcomeAtOnce() {
        Job job = job("s", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        JobRun skipped = new JobRun("s", at, JobRun.Kind.NOT_RUN, JobRun.State.DONE, job.platform(), JobRun.messageId("s", at), "skipped",
                at, at);

        assertThat(schedules().claim("s", at, at.plus(Duration.ofMinutes(5)), skipped)).isTrue();

        assertThat(schedules().find("s").orElseThrow().lastOutcome()).isEqualTo("skipped");
        assertThat(schedules().hasOpenRun("s", resumeSince())).isFalse();
    }

    @Test
    void putConfigured_unchangedSchedule_keepsTheStoredNextRun() {
        Job first = job("cfg", "0 9 * * *", Misfire.RUN_ONCE);
        schedules().putConfigured(first);
        clock.advance(Duration.ofDays(2)); // a restart long after: the stored 09:00 is still owed (a catch-up decides)
        Job again = job("cfg", "0 9 * * *", Misfire.RUN_ONCE);

        Job stored = schedules().putConfigured(new Job("cfg", "a new prompt", again.schedule(), again.source(), again.misfire(),
                again.catchUpWindow(), true, Definer.CONFIG, "config", again.createdAt(), again.updatedAt(), again.nextRunAt(), null, null, null));

        assertThat(stored.nextRunAt()).isEqualTo(first.nextRunAt());
        assertThat(stored.prompt()).isEqualTo("a new prompt");
        assertThat(stored.definedBy()).isEqualTo(Definer.CONFIG);
    }

    @Test
    void putConfigured_changedSchedule_takesTheNewNextRun() {
        schedules().putConfigured(job("cfg", "0 9 * * *", Misfire.RUN_ONCE));
        Job changed = job("cfg", "0 10 * * *", Misfire.RUN_ONCE);

        Job stored = schedules().putConfigured(changed);

        assertThat(stored.schedule().text()).isEqualTo("0 10 * * *");
        assertThat(stored.nextRunAt()).isEqualTo(changed.nextRunAt());
    }

    @Test
    void aJobsModelAndTools_surviveAReopen_andAnEmptyListStaysNoTools() {
        schedules().create(job("fast", "0 9 * * *", Misfire.SKIP).withOptions("fast", List.of("read_file", "github__*")));
        schedules().create(job("quiet", "0 9 * * *", Misfire.SKIP).withOptions(null, List.of()));
        schedules().create(job("plain", "0 9 * * *", Misfire.SKIP));

        reopen();

        assertThat(schedules().find("fast").orElseThrow()).extracting(Job::model, Job::tools)
                .containsExactly("fast", List.of("read_file", "github__*"));
        assertThat(schedules().find("quiet").orElseThrow().tools()).as("no tools, not 'not set'").isEmpty();
        assertThat(schedules().find("plain").orElseThrow()).extracting(Job::model, Job::tools).containsExactly(null, null);
    }

    @Test
    void putConfigured_replacesTheModelAndTools_alsoWithNone() {
        schedules().putConfigured(job("cfg", "0 9 * * *", Misfire.RUN_ONCE).withOptions("fast", List.of("shell")));

        Job stored = schedules().putConfigured(job("cfg", "0 9 * * *", Misfire.RUN_ONCE).withOptions(null, List.of("read_file")));
        assertThat(stored).extracting(Job::model, Job::tools).containsExactly(null, List.of("read_file"));
        stored = schedules().putConfigured(job("cfg", "0 9 * * *", Misfire.RUN_ONCE));
        assertThat(stored).extracting(Job::model, Job::tools).containsExactly(null, null);
    }

    @Test
    void setEnabled_andDelete_ofAMissingJob_sayFalse() {
        assertThat(schedules().setEnabled("nope", false, null, clock.instant())).isFalse();
        assertThat(schedules().delete("nope")).isFalse();
    }

    @Test
    void delete_removesTheJobAndItsOccurrences() {
        Job job = job("d", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        schedules().claim("d", job.nextRunAt(), null, claimed(job, job.nextRunAt(), clock.instant()));

        assertThat(schedules().delete("d")).isTrue();

        assertThat(schedules().find("d")).isEmpty();
        assertThat(schedules().runs("d", 10)).isEmpty();
        assertThat(schedules().claimedBefore(clock.instant().plusSeconds(1), 10)).isEmpty();
    }

    @Test
    void claimManual_recordsARunOutsideTheSchedule_once() {
        Job job = job("m", "0 9 * * *", Misfire.SKIP);
        schedules().create(job);
        Instant now = clock.instant();
        JobRun manual = new JobRun("m", now, JobRun.Kind.MANUAL, JobRun.State.CLAIMED, job.platform(), JobRun.messageId("m", now), null,
                now, now);

        assertThat(schedules().claimManual(manual)).isTrue();
        assertThat(schedules().claimManual(manual)).isFalse();
        assertThat(schedules().claimManual(new JobRun("gone", now, JobRun.Kind.MANUAL, JobRun.State.CLAIMED, job.platform(), "x", null,
                now, now))).isFalse();
        assertThat(schedules().find("m").orElseThrow().nextRunAt()).as("the schedule is untouched").isEqualTo(job.nextRunAt());
    }

    @Test
    void settle_aSubmittedOccurrenceWhoseTurnWasDelivered_isOk_andTheJobShowsIt() {
        Job job = job("s", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        clock.set(at);
        schedules().claim("s", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        TurnRecord turn = storeTurnOf(job, at);
        schedules().markSubmitted("s", at, at);
        assertThat(schedules().hasOpenRun("s", resumeSince())).as("its turn is still waiting").isTrue();
        assertThat(schedules().settle(clock.instant(), resumeSince())).isEmpty();

        runAndDeliver(turn);

        assertThat(schedules().hasOpenRun("s", resumeSince())).isFalse();
        List<JobRun> settled = schedules().settle(clock.instant(), resumeSince());
        assertThat(settled).singleElement().satisfies(r -> {
            assertThat(r.outcome()).isEqualTo("ok");
            assertThat(r.state()).isEqualTo(JobRun.State.DONE);
        });
        assertThat(schedules().settle(clock.instant(), resumeSince())).as("settled once").isEmpty();
        assertThat(schedules().find("s").orElseThrow().lastOutcome()).isEqualTo("ok");
    }

    @Test
    void settle_anOccurrenceWhoseConversationWasPurged_isDone_andTheNextRunIsNotHeldBack() {
        Job job = job("p", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        clock.set(at);
        schedules().claim("p", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        TurnRecord turn = storeTurnOf(job, at);
        schedules().markSubmitted("p", at, at);
        runAndDeliver(turn);

        assertThat(sessions().purge(turn.sessionKey())).isInstanceOf(dev.herald.core.session.PurgeResult.Purged.class);

        assertThat(schedules().hasOpenRun("p", resumeSince())).as("a run whose turn was purged has ended").isFalse();
        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("purged");
        assertThat(schedules().find("p").orElseThrow().lastOutcome()).isEqualTo("purged");
    }

    @Test
    void settle_anInterruptedTurn_isInterrupted() {
        Job job = job("i", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        schedules().claim("i", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        TurnRecord turn = storeTurnOf(job, at);
        schedules().markSubmitted("i", at, at);
        SessionEntry lane = sessions().getOrCreate(turn.sessionKey(), turn.source());
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user(turn.text(), clock.instant()));
        turns().interrupt(turn.id(), "interrupted");

        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("interrupted");
    }

    /** A submitted occurrence whose turn started and was cut off, its lane marked for a resume (as a stop or crash leaves it). */
    private TurnRecord cutOffRun(Job job, Instant at) {
        schedules().create(job);
        schedules().claim(job.id(), at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        TurnRecord turn = storeTurnOf(job, at);
        schedules().markSubmitted(job.id(), at, at);
        SessionEntry lane = sessions().getOrCreate(turn.sessionKey(), turn.source());
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user(turn.text(), clock.instant())).orElseThrow();
        turns().interrupt(turn.id(), "interrupted");
        sessions().markResumePending(turn.sessionKey(), dev.herald.core.session.ResumeReason.RESTART_INTERRUPTED);
        return turn;
    }

    /** The gateway's resume turn of the run's lane, started. */
    private TurnRecord resumeStarted(TurnRecord cut) {
        clock.advance(Duration.ofSeconds(1));
        TurnRecord resume = turns().receive(cut.sessionKey(), MessageEvent.resume(cut.source(), clock.instant())).orElseThrow();
        String sessionId = sessions().getOrCreate(cut.sessionKey(), cut.source()).sessionId();
        return turns().start(resume.id(), sessionId, TranscriptRow.user("[System note: ...]", clock.instant())).orElseThrow();
    }

    @Test
    void settle_aCutOffRunThatWasResumedAndDelivered_endsResumedOk_notInterrupted() {
        Job job = job("ri", "*/5 * * * *", Misfire.SKIP);
        Instant at = job.nextRunAt();
        clock.set(at);
        TurnRecord cut = cutOffRun(job, at);

        assertThat(schedules().settle(clock.instant(), resumeSince())).as("its resume is still to come").isEmpty();
        assertThat(schedules().hasOpenRun("ri", resumeSince())).isTrue();
        TurnRecord resume = resumeStarted(cut);
        assertThat(schedules().settle(clock.instant(), resumeSince())).as("its resume runs").isEmpty();
        assertThat(schedules().hasOpenRun("ri", resumeSince())).isTrue();
        turns().recordReply(resume.id(), "final", "the report");
        turns().delivered(resume.id(), "m-2");
        sessions().clearResumePending(cut.sessionKey());

        assertThat(schedules().hasOpenRun("ri", resumeSince())).isFalse();
        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("resumed, ok");
        assertThat(schedules().runs("ri", 10)).extracting(JobRun::outcome).containsExactly("resumed, ok");
        assertThat(schedules().find("ri").orElseThrow().lastOutcome()).isEqualTo("resumed, ok");
    }

    @Test
    void settle_aRunCutOffTwice_followsBothResumes_toTheLastOnesOutcome() {
        Job job = job("twice", "*/5 * * * *", Misfire.SKIP);
        Instant at = job.nextRunAt();
        clock.set(at);
        TurnRecord cut = cutOffRun(job, at);
        TurnRecord first = resumeStarted(cut);
        turns().interrupt(first.id(), "interrupted");
        assertThat(schedules().settle(clock.instant(), resumeSince())).as("the lane is still resume-pending").isEmpty();

        TurnRecord second = resumeStarted(cut);
        turns().fail(second.id(), "error", "the model failed");

        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("resumed, failed");
    }

    @Test
    void settle_aCutOffRunWhoseResumeDoesNotComeInTime_isInterrupted() {
        Job job = job("late", "*/5 * * * *", Misfire.SKIP);
        Instant at = job.nextRunAt();
        clock.set(at);
        cutOffRun(job, at);
        assertThat(schedules().settle(clock.instant(), resumeSince())).isEmpty();

        clock.advance(Duration.ofMinutes(61));

        assertThat(schedules().hasOpenRun("late", resumeSince())).isFalse();
        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("interrupted");
    }

    @Test
    void settle_aCutOffRunWhoseLaneWentOnWithAMessage_isInterrupted() {
        Job job = job("moved", "*/5 * * * *", Misfire.SKIP);
        Instant at = job.nextRunAt();
        clock.set(at);
        TurnRecord cut = cutOffRun(job, at);
        clock.advance(Duration.ofSeconds(1));
        TurnRecord user = turns().receive(cut.sessionKey(), MessageEvent.text(cut.source(), "something else", "u-1", clock.instant()))
                .orElseThrow();
        runAndDeliver(user);

        assertThat(schedules().settle(clock.instant(), resumeSince())).extracting(JobRun::outcome).containsExactly("interrupted");
    }

    @Test
    void finish_aRefusedOccurrence_showsOnTheJob() {
        Job job = job("r", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        schedules().claim("r", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));

        assertThat(schedules().finish("r", at, "refused", at)).isTrue();
        assertThat(schedules().finish("r", at, "refused", at)).isFalse();

        assertThat(schedules().find("r").orElseThrow().lastOutcome()).isEqualTo("refused");
    }

    @Test
    void claimedBefore_listsOccurrencesNeverSubmitted() {
        Job job = job("c", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        schedules().claim("c", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));

        assertThat(schedules().claimedBefore(at, 10)).isEmpty();
        assertThat(schedules().claimedBefore(at.plusSeconds(1), 10)).extracting(JobRun::jobId).containsExactly("c");
        schedules().markSubmitted("c", at, at);
        assertThat(schedules().claimedBefore(at.plusSeconds(1), 10)).isEmpty();
    }

    @Test
    void prune_dropsOnlyFinishedOccurrencesOlderThanTheCut() {
        Job job = job("p", "*/5 * * * *", Misfire.SKIP);
        schedules().create(job);
        Instant at = job.nextRunAt();
        schedules().claim("p", at, at.plus(Duration.ofMinutes(5)), claimed(job, at, at));
        schedules().finish("p", at, "ok", at);
        Instant second = at.plus(Duration.ofMinutes(5));
        schedules().claim("p", second, second.plus(Duration.ofMinutes(5)), claimed(job, second, second));

        assertThat(schedules().prune(at.plus(Duration.ofDays(1)))).isEqualTo(1);
        assertThat(schedules().runs("p", 10)).extracting(JobRun::scheduledAt).containsExactly(second);
    }

    @Test
    void aJobWithAZoneAndAnotherChat_roundTrips() {
        SessionSource group = new SessionSource(CHAT, "-100", dev.herald.core.platform.ChatType.GROUP, "u7", null, "42", null);
        Instant now = clock.instant();
        Schedule s = Schedule.parse("30 2 * * *", ZoneId.of("Europe/Berlin"), now);
        Job job = new Job("berlin", "night work", s, group, Misfire.RUN_ONCE, Duration.ofMinutes(90), false, Definer.AGENT, "agent", now,
                now, s.nextAfter(now).orElseThrow(), null, null, null);
        schedules().create(job);

        reopen();

        Job read = schedules().find("berlin").orElseThrow();
        assertThat(read).isEqualTo(job);
        assertThat(read.target()).isEqualTo("loopback:-100:42");
    }

    /** Stores the turn the gateway would for the occurrence (the event's dedupe id is the occurrence's). */
    protected final TurnRecord storeTurnOf(Job job, Instant at) {
        MessageEvent e = new MessageEvent("ev-" + job.id() + "-" + at.toEpochMilli(), job.source(), job.prompt(),
                JobRun.messageId(job.id(), at), null, List.of(), MessageEvent.Origin.SCHEDULE, clock.instant());
        return turns().receive(keyOf(job.source()), e).orElseThrow();
    }

    protected final void runAndDeliver(TurnRecord turn) {
        SessionEntry lane = sessions().getOrCreate(turn.sessionKey(), turn.source());
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user(turn.text(), clock.instant())).orElseThrow();
        turns().recordReply(turn.id(), "final", "hello");
        turns().delivered(turn.id(), "m-1");
    }
}
