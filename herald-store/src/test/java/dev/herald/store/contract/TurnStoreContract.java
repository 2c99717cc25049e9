package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.continuity.FreshnessWindow;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The behaviour of {@link dev.herald.core.turn.TurnStore}, for every store implementation. */
public abstract class TurnStoreContract extends StorageContract {
    private static final FreshnessWindow HOUR = FreshnessWindow.ofSeconds(3600);

    private TurnRecord received(String chatId, String text, String messageId) {
        SessionSource source = dm(chatId);
        return turns().receive(keyOf(source), MessageEvent.text(source, text, messageId, clock.instant())).orElseThrow();
    }

    /** A lane with a RUNNING turn whose user row is in the transcript. */
    private TurnRecord running(String chatId) {
        SessionEntry lane = lane(chatId);
        TurnRecord turn = received(chatId, "work on it", null);
        return turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("work on it", clock.instant())).orElseThrow();
    }

    @Test
    void receive_storesTheEventAsReceivedTurn() {
        SessionSource source = dm("1");
        MessageEvent event = MessageEvent.text(source, "hello", "m-1", clock.instant());

        TurnRecord turn = turns().receive(keyOf(source), event).orElseThrow();

        assertThat(turn.state()).isEqualTo(TurnState.RECEIVED);
        assertThat(turn.sessionKey()).isEqualTo(keyOf(source));
        assertThat(turn.eventId()).isEqualTo(event.eventId());
        assertThat(turn.source()).isEqualTo(source);
        assertThat(turn.text()).isEqualTo("hello");
        assertThat(turn.platformMessageId()).isEqualTo("m-1");
        assertThat(turn.origin()).isEqualTo(MessageEvent.Origin.USER);
        assertThat(turn.sessionId()).isNull();
        assertThat(turn.receivedAt()).isEqualTo(clock.instant());
        assertThat(turns().find(turn.id())).contains(turn);
    }

    @Test
    void receive_idsIncreaseInArrivalOrder() {
        TurnRecord a = received("1", "a", null);
        TurnRecord b = received("2", "b", null);

        assertThat(b.id()).isGreaterThan(a.id());
    }

    @Test
    void receive_samePlatformMessageIdTwice_storesItOnce() {
        received("1", "hello", "m-1");

        SessionSource source = dm("1");
        assertThat(turns().receive(keyOf(source), MessageEvent.text(source, "hello", "m-1", clock.instant()))).isEmpty();
        assertThat(turns().inState(TurnState.RECEIVED, 10)).hasSize(1);
    }

    @Test
    void receive_duplicateAfterReopen_isStillDropped() {
        received("1", "hello", "m-1");

        reopen();

        SessionSource source = dm("1");
        assertThat(turns().receive(keyOf(source), MessageEvent.text(source, "hello", "m-1", clock.instant()))).isEmpty();
    }

    @Test
    void receive_sameMessageIdOnAnotherPlatform_isStored() {
        received("1", "hello", "m-1");
        SessionSource other = on(OTHER, "1");

        assertThat(turns().receive(keyOf(other), MessageEvent.text(other, "hello", "m-1", clock.instant()))).isPresent();
    }

    @Test
    void receive_eventsWithoutMessageId_areNeverDeduplicated() {
        received("1", "same", null);

        assertThat(turns().receive(keyOf(dm("1")), MessageEvent.text(dm("1"), "same", null, clock.instant()))).isPresent();
        assertThat(turns().receive(keyOf(dm("1")), MessageEvent.resume(dm("1"), clock.instant()))).isPresent();
    }

    @Test
    void start_receivedTurn_runsItAndAppendsTheUserRowInItsSession() {
        SessionEntry lane = lane("1");
        TurnRecord turn = received("1", "hello", "m-1");
        clock.advance(Duration.ofSeconds(2));

        TurnRecord started = turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("hello", clock.instant())).orElseThrow();

        assertThat(started.state()).isEqualTo(TurnState.RUNNING);
        assertThat(started.sessionId()).isEqualTo(lane.sessionId());
        assertThat(started.updatedAt()).isEqualTo(clock.instant());
        assertThat(transcripts().load(lane.sessionId())).extracting(TranscriptRow::role, TranscriptRow::content)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Role.USER, "hello"));
    }

    @Test
    void start_whileAnotherTurnOfTheLaneRuns_refusesAndAppendsNothing() {
        TurnRecord first = running("1");
        TurnRecord second = received("1", "second", null);

        assertThat(turns().start(second.id(), first.sessionId(), TranscriptRow.user("second", clock.instant()))).isEmpty();

        assertThat(turns().find(second.id()).orElseThrow().state()).isEqualTo(TurnState.RECEIVED);
        assertThat(transcripts().rowCount(first.sessionId())).isEqualTo(1);
    }

    @Test
    void start_otherLanes_runSideBySide() {
        running("1");

        assertThat(running("2").state()).isEqualTo(TurnState.RUNNING);
    }

    @Test
    void start_afterTheRunningTurnFinished_runsTheNextOne() {
        TurnRecord first = running("1");
        TurnRecord second = received("1", "second", null);
        turns().finish(first.id(), TurnState.DELIVERED, "final");

        assertThat(turns().start(second.id(), first.sessionId(), null)).isPresent();
    }

    @Test
    void start_turnNotReceived_returnsEmpty() {
        TurnRecord turn = running("1");

        assertThat(turns().start(turn.id(), turn.sessionId(), null)).isEmpty();
        assertThat(turns().start(987_654, turn.sessionId(), null)).isEmpty();
    }

    @Test
    void start_userRowForUnknownSession_failsAndLeavesTheTurnReceived() {
        TurnRecord turn = received("1", "hello", null);

        assertThatThrownBy(() -> turns().start(turn.id(), "no-such-session", TranscriptRow.user("hello", clock.instant())))
                .isInstanceOf(RuntimeException.class);

        assertThat(turns().find(turn.id()).orElseThrow().state()).isEqualTo(TurnState.RECEIVED);
    }

    @Test
    void replyAndDelivery_moveThroughTheOutbox() {
        TurnRecord turn = running("1");

        assertThat(turns().markDelivered(turn.id(), "x")).isFalse();
        assertThat(turns().recordReply(turn.id(), "final", "the answer")).isTrue();
        assertThat(turns().recordReply(turn.id(), "final", "again")).isFalse();
        TurnRecord awaiting = turns().find(turn.id()).orElseThrow();
        assertThat(awaiting.state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(awaiting.reply()).isEqualTo("the answer");
        assertThat(awaiting.outcome()).isEqualTo("final");
        assertThat(turns().markDelivered(turn.id(), "sent-9")).isTrue();
        assertThat(turns().markDelivered(turn.id(), "sent-10")).isFalse();
        TurnRecord delivered = turns().find(turn.id()).orElseThrow();
        assertThat(delivered.state()).isEqualTo(TurnState.DELIVERED);
        assertThat(delivered.replyMessageId()).isEqualTo("sent-9");
    }

    @Test
    void deliveryProgress_partsOnlyMoveForward_andFailuresAreCountedWithTheirError() {
        TurnRecord turn = running("1");
        assertThat(turns().markPartsDelivered(turn.id(), 1)).as("not awaiting delivery yet").isFalse();
        turns().recordReply(turn.id(), "final", "a long answer");

        assertThat(turns().markPartsDelivered(turn.id(), 2)).isTrue();
        assertThat(turns().markPartsDelivered(turn.id(), 1)).as("never backwards").isFalse();
        clock.advance(Duration.ofSeconds(7));
        assertThat(turns().recordDeliveryFailure(turn.id(), "429 too many requests", false)).isTrue();
        assertThat(turns().recordDeliveryFailure(turn.id(), "502 bad gateway", false)).isTrue();

        TurnRecord stored = turns().find(turn.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(stored.partsDelivered()).isEqualTo(2);
        assertThat(stored.deliveryAttempts()).isEqualTo(2);
        assertThat(stored.deliveryError()).isEqualTo("502 bad gateway");
        assertThat(stored.updatedAt()).isEqualTo(clock.instant());
        assertThat(turns().markDelivered(turn.id(), "m-9")).isTrue();
        assertThat(turns().recordDeliveryFailure(turn.id(), "late", false)).as("a delivered reply has no failures").isFalse();
    }

    @Test
    void permanentDeliveryFailure_makesTheTurnUndeliverable_andLatestStartedShowsIt_notTheQueuedOne() {
        TurnRecord first = running("1");
        turns().recordReply(first.id(), "final", "first answer");
        turns().markDelivered(first.id(), "m-1");
        TurnRecord second = running("1");
        turns().recordReply(second.id(), "final", "second answer");
        received("1", "still queued", null);
        running("2");

        assertThat(turns().recordDeliveryFailure(second.id(), "403 bot was blocked by the user", true)).isTrue();

        TurnRecord latest = turns().latestStarted(first.sessionKey()).orElseThrow();
        assertThat(latest.id()).isEqualTo(second.id());
        assertThat(latest.state()).isEqualTo(TurnState.UNDELIVERABLE);
        assertThat(latest.deliveryError()).isEqualTo("403 bot was blocked by the user");
        assertThat(turns().inState(TurnState.AWAITING_DELIVERY, 10)).isEmpty();
        assertThat(turns().markDelivered(second.id(), "m-2")).isFalse();
        assertThat(turns().latestStarted(keyOf(dm("2")))).get().extracting(TurnRecord::state).isEqualTo(TurnState.RUNNING);
        assertThat(turns().latestStarted(keyOf(dm("3")))).isEmpty();
    }

    @Test
    void markResumePendingWhileRunning_marksOnlyWhileTheTurnRuns() {
        TurnRecord turn = running("1");
        TurnRecord other = running("2");

        assertThat(sessions().markResumePendingWhileRunning(turn.sessionKey(), other.id(), ResumeReason.RESTART_TIMEOUT))
                .as("another lane's turn").isFalse();
        assertThat(sessions().markResumePendingWhileRunning(turn.sessionKey(), turn.id(), ResumeReason.RESTART_TIMEOUT)).isTrue();
        assertThat(sessions().find(turn.sessionKey()).orElseThrow().resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
        sessions().clearResumePending(turn.sessionKey());
        turns().recordReply(turn.id(), "final", "done");

        assertThat(sessions().markResumePendingWhileRunning(turn.sessionKey(), turn.id(), ResumeReason.SHUTDOWN_TIMEOUT))
                .as("its reply is recorded: nothing to resume").isFalse();
        assertThat(sessions().find(turn.sessionKey()).orElseThrow().resumePending()).isFalse();
    }

    @Test
    void addUsage_accumulatesOnTheTurn() {
        TurnRecord turn = running("1");

        turns().addUsage(turn.id(), 100, 7);
        turns().addUsage(turn.id(), 5, 3);

        TurnRecord stored = turns().find(turn.id()).orElseThrow();
        assertThat(stored.inputTokens()).isEqualTo(105);
        assertThat(stored.outputTokens()).isEqualTo(10);
    }

    @Test
    void finish_runningTurn_endsItOnce() {
        TurnRecord turn = running("1");

        assertThat(turns().finish(turn.id(), TurnState.FAILED, "error")).isTrue();
        assertThat(turns().finish(turn.id(), TurnState.DELIVERED, "final")).isFalse();
        assertThat(turns().find(turn.id()).orElseThrow()).extracting(TurnRecord::state, TurnRecord::outcome)
                .containsExactly(TurnState.FAILED, "error");
    }

    @Test
    void finish_nonTerminalState_isRejected() {
        TurnRecord turn = running("1");

        assertThatThrownBy(() -> turns().finish(turn.id(), TurnState.AWAITING_DELIVERY, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> turns().finish(turn.id(), TurnState.CANCELLED, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cancel_onlyReceivedTurns() {
        TurnRecord waiting = received("1", "a", null);
        TurnRecord busy = running("2");

        assertThat(turns().cancel(waiting.id(), "lane reset")).isTrue();
        assertThat(turns().cancel(busy.id(), "no")).isFalse();
        assertThat(turns().find(waiting.id()).orElseThrow().state()).isEqualTo(TurnState.CANCELLED);
        assertThat(turns().start(waiting.id(), busy.sessionId(), null)).isEmpty();
    }

    @Test
    void inState_returnsOldestFirstUpToTheLimit() {
        TurnRecord a = received("1", "a", null);
        TurnRecord b = received("2", "b", null);
        received("3", "c", null);
        running("4");

        assertThat(turns().inState(TurnState.RECEIVED, 2)).extracting(TurnRecord::id).containsExactly(a.id(), b.id());
        assertThat(turns().inState(TurnState.RUNNING, 10)).hasSize(1);
    }

    @Test
    void find_unknownTurn_isEmpty() {
        assertThat(turns().find(42)).isEmpty();
    }

    @Test
    void turnsInEveryState_surviveCloseAndReopen() {
        TurnRecord waiting = received("1", "queued", "m-1");
        TurnRecord busy = running("2");

        reopen();

        assertThat(turns().find(waiting.id())).contains(waiting);
        assertThat(turns().find(busy.id())).contains(busy);
    }

    @Test
    void recoverInterrupted_freshRunningTurn_interruptsItMarksTheLaneAndCountsIt() {
        TurnRecord turn = running("1");
        reopen(); // the crash
        clock.advance(Duration.ofMinutes(10));

        List<dev.herald.core.session.SessionKey> marked = turns().recoverInterrupted(HOUR, clock.instant());

        assertThat(marked).containsExactly(turn.sessionKey());
        assertThat(turns().find(turn.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        SessionEntry lane = sessions().find(turn.sessionKey()).orElseThrow();
        assertThat(lane.resumePending()).isTrue();
        assertThat(lane.resumeReason()).isEqualTo(ResumeReason.RESTART_INTERRUPTED);
        assertThat(lane.lastResumeMarkedAt()).isEqualTo(clock.instant());
        assertThat(lane.interruptedRestarts()).isEqualTo(1);
        assertThat(turns().inState(TurnState.RUNNING, 10)).isEmpty();
    }

    @Test
    void recoverInterrupted_staleTurn_interruptsAndCountsButDoesNotMark() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofHours(2));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).isEmpty();

        assertThat(turns().find(turn.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        SessionEntry lane = sessions().find(turn.sessionKey()).orElseThrow();
        assertThat(lane.resumePending()).isFalse();
        assertThat(lane.interruptedRestarts()).isEqualTo(1);
    }

    @Test
    void recoverInterrupted_lastRowDecidesFreshnessNotTheTurnStart() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofHours(2));
        transcripts().append(turn.sessionId(), TranscriptRow.tool("c1", "search", "result", clock.instant()));
        clock.advance(Duration.ofMinutes(5));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_bookkeepingRows_doNotMakeAnInterruptionFresh() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofHours(2));
        transcripts().append(turn.sessionId(), TranscriptRow.system("gateway note", clock.instant()));
        transcripts().append(turn.sessionId(), TranscriptRow.meta("{}", clock.instant()));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).isEmpty();
    }

    @Test
    void recoverInterrupted_lastRowWithoutTimestamp_countsAsFresh() {
        TurnRecord turn = running("1");
        transcripts().append(turn.sessionId(), new TranscriptRow(0, Role.ASSISTANT, "legacy", List.of(), null, null, null));
        clock.advance(Duration.ofDays(3));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_emptyTranscript_usesTheTurnStart() {
        SessionEntry lane = lane("1");
        TurnRecord turn = received("1", "", null);
        turns().start(turn.id(), lane.sessionId(), null);
        clock.advance(Duration.ofMinutes(59));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).containsExactly(lane.key());
    }

    @Test
    void recoverInterrupted_disabledWindow_treatsEveryTurnAsFresh() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofDays(30));

        assertThat(turns().recoverInterrupted(FreshnessWindow.ofSeconds(0), clock.instant())).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_resumePendingLane_keepsItsReasonAndIsCounted() {
        TurnRecord turn = running("1");
        sessions().markResumePending(turn.sessionKey(), ResumeReason.SHUTDOWN_TIMEOUT);
        var markedAt = clock.instant();
        clock.advance(Duration.ofMinutes(1));

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).isEmpty();

        SessionEntry lane = sessions().find(turn.sessionKey()).orElseThrow();
        assertThat(lane.resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
        assertThat(lane.lastResumeMarkedAt()).isEqualTo(markedAt);
        assertThat(lane.interruptedRestarts()).isEqualTo(1);
    }

    @Test
    void recoverInterrupted_suspendedLane_isNotMarkedButCounted() {
        TurnRecord turn = running("1");
        sessions().suspend(turn.sessionKey(), SuspendReason.OPERATOR);

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).isEmpty();

        SessionEntry lane = sessions().find(turn.sessionKey()).orElseThrow();
        assertThat(lane.resumePending()).isFalse();
        assertThat(lane.suspended()).isTrue();
        assertThat(lane.interruptedRestarts()).isEqualTo(1);
    }

    @Test
    void recoverInterrupted_leavesOtherStatesAlone() {
        TurnRecord waiting = received("1", "queued", null);
        TurnRecord awaiting = running("2");
        turns().recordReply(awaiting.id(), "final", "reply");

        assertThat(turns().recoverInterrupted(HOUR, clock.instant())).isEmpty();

        assertThat(turns().find(waiting.id()).orElseThrow().state()).isEqualTo(TurnState.RECEIVED);
        assertThat(turns().find(awaiting.id()).orElseThrow().state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(sessions().find(awaiting.sessionKey()).orElseThrow().interruptedRestarts()).isZero();
    }

    @Test
    void recoverInterrupted_thenTheLaneCanStartAgain() {
        TurnRecord turn = running("1");
        turns().recoverInterrupted(HOUR, clock.instant());
        TurnRecord resume = turns().receive(turn.sessionKey(), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();

        Optional<TurnRecord> started = turns().start(resume.id(), turn.sessionId(), null);

        assertThat(started).map(TurnRecord::origin).contains(MessageEvent.Origin.RESUME);
    }

    @Test
    void recoverInterrupted_repeatedCrashes_accumulateTheCounter() {
        for (int crash = 1; crash <= 3; crash++) {
            running("1");
            reopen();
            turns().recoverInterrupted(HOUR, clock.instant());
            assertThat(sessions().find(keyOf(dm("1"))).orElseThrow().interruptedRestarts()).isEqualTo(crash);
        }
        assertThat(sessions().suspendStuckLoops(3)).containsExactly(keyOf(dm("1")));
    }
}
