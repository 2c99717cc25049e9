package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnChange;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.TurnTransition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The behaviour of {@link dev.herald.core.turn.TurnStore}, for every store implementation. */
public abstract class TurnStoreContract extends StorageContract {
    private static final Freshness HOUR = Freshness.ofSeconds(3600);

    private TurnRecord received(String chatId, String text, String messageId) {
        SessionSource source = dm(chatId);
        return turns().receive(keyOf(source), MessageEvent.text(source, text, messageId, clock.instant())).orElseThrow();
    }

    @Test
    void receiveAndStart_messageWithAttachments_keepsThemAsDataOnTheTurnAndItsUserRow() {
        SessionEntry lane = lane("1");
        List<MessageEvent.MediaRef> files = List.of(
                new MessageEvent.MediaRef("document", "BQAD-doc", "application/pdf", "report \"Q3\".pdf", 123_456),
                new MessageEvent.MediaRef("photo", "AgAD-photo", "image/jpeg"));
        TurnRecord turn = turns().receive(lane.key(), new MessageEvent("ev-files", dm("1"), "", "m-files", null, files,
                MessageEvent.Origin.USER, clock.instant())).orElseThrow();

        assertThat(turns().find(turn.id()).orElseThrow().attachments()).isEqualTo(files);
        assertThat(turns().find(turn.id()).orElseThrow().text()).isEmpty();
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("", files, clock.instant())).orElseThrow();
        assertThat(transcripts().load(lane.sessionId())).filteredOn(r -> r.role() == Role.USER).singleElement()
                .satisfies(r -> assertThat(r.attachments()).isEqualTo(files));
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
    void findByMessage_findsTheTurnOfAMessageByItsPlatformAndId_only() {
        TurnRecord turn = received("1", "hello", "m-1");

        assertThat(turns().findByMessage(turn.source().platform().id(), "m-1")).contains(turn);
        assertThat(turns().findByMessage(OTHER.id(), "m-1")).isEmpty();
        assertThat(turns().findByMessage(turn.source().platform().id(), "m-2")).isEmpty();
    }

    @Test
    void resumeAfter_findsTheLanesFirstResumeTurnAfterTheGivenOne_notAnEarlierOneOrAnotherLanes() {
        TurnRecord earlierResume = turns().receive(keyOf(dm("1")), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();
        TurnRecord cut = received("1", "long job", null);
        turns().receive(keyOf(dm("2")), MessageEvent.resume(dm("2"), clock.instant())).orElseThrow();
        received("1", "next message", null);

        assertThat(turns().resumeAfter(keyOf(dm("1")), cut.id())).isEmpty();
        TurnRecord resume = turns().receive(keyOf(dm("1")), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();
        turns().receive(keyOf(dm("1")), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();

        assertThat(turns().resumeAfter(keyOf(dm("1")), cut.id())).contains(resume);
        assertThat(turns().resumeAfter(keyOf(dm("1")), earlierResume.id() - 1)).contains(earlierResume);
    }

    @Test
    void receive_eventsWithoutMessageId_areNeverDeduplicated() {
        received("1", "same", null);

        assertThat(turns().receive(keyOf(dm("1")), MessageEvent.text(dm("1"), "same", null, clock.instant()))).isPresent();
        assertThat(turns().receive(keyOf(dm("1")), MessageEvent.resume(dm("1"), clock.instant()))).isPresent();
    }

    @Test
    void forTurn_readsALaneAsItIs_andTheTurnsStartBumpsItsRow() {
        SessionEntry lane = lane("1");
        clock.advance(Duration.ofMinutes(5));
        SessionSource renamed = new SessionSource(CHAT, "1", ChatType.DM, "u1", "New Name", null, "Chat One");
        TurnRecord turn = received("1", "hello", "m-1");

        SessionEntry entry = sessions().forTurn(lane.key(), renamed);

        assertThat(entry.sessionId()).isEqualTo(lane.sessionId());
        assertThat(entry.updatedAt()).isEqualTo(clock.instant());
        assertThat(entry.origin()).isEqualTo(renamed);
        assertThat(entry.displayName()).isEqualTo("Chat One");
        assertThat(sessions().find(lane.key())).as("read, not written").contains(lane);

        turns().start(turn.id(), entry.sessionId(), TranscriptRow.user("hello", clock.instant()), renamed).orElseThrow();

        assertThat(sessions().find(lane.key())).as("the start wrote what forTurn returned").contains(entry);
    }

    @Test
    void forTurn_aLaneThatNeedsAWrite_isGetOrCreates() {
        SessionSource source = dm("1");
        SessionEntry created = sessions().forTurn(keyOf(source), source);
        assertThat(sessions().find(created.key())).as("a new lane is created").contains(created);

        transcripts().continueInChild(created.sessionId(), "child-1", clock.instant());
        assertThat(sessions().forTurn(created.key(), source).sessionId()).as("a compression is followed").isEqualTo("child-1");
        assertThat(sessions().find(created.key()).orElseThrow().sessionId()).isEqualTo("child-1");

        sessions().suspend(created.key(), SuspendReason.OPERATOR);
        SessionEntry fresh = sessions().forTurn(created.key(), source);
        assertThat(fresh.sessionId()).as("a suspended lane starts afresh").isNotIn(created.sessionId(), "child-1");
        assertThat(fresh.autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
        assertThat(sessions().find(created.key())).contains(fresh);
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
        turns().complete(first.id(), "final");

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

        assertThat(turns().delivered(turn.id(), "x")).isFalse();
        assertThat(turns().recordReply(turn.id(), "final", "the answer")).isTrue();
        assertThat(turns().recordReply(turn.id(), "final", "again")).isFalse();
        TurnRecord awaiting = turns().find(turn.id()).orElseThrow();
        assertThat(awaiting.state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(awaiting.reply()).isEqualTo("the answer");
        assertThat(awaiting.outcome()).isEqualTo("final");
        assertThat(turns().delivered(turn.id(), "sent-9")).isTrue();
        assertThat(turns().delivered(turn.id(), "sent-10")).isFalse();
        TurnRecord delivered = turns().find(turn.id()).orElseThrow();
        assertThat(delivered.state()).isEqualTo(TurnState.DELIVERED);
        assertThat(delivered.replyMessageId()).isEqualTo("sent-9");
    }

    @Test
    void deliveryProgress_partsOnlyMoveForward_andFailuresAreCountedWithTheirError() {
        TurnRecord turn = running("1");
        assertThat(turns().recordPartSent(turn.id(), 1, "m-1")).as("not awaiting delivery yet").isFalse();
        turns().recordReply(turn.id(), "final", "a long answer");

        assertThat(turns().recordPartSent(turn.id(), 2, "m-2")).isTrue();
        assertThat(turns().recordPartSent(turn.id(), 1, "m-1")).as("never backwards").isFalse();
        clock.advance(Duration.ofSeconds(7));
        assertThat(turns().recordDeliveryFailure(turn.id(), "429 too many requests")).isTrue();
        assertThat(turns().recordDeliveryFailure(turn.id(), "502 bad gateway")).isTrue();

        TurnRecord stored = turns().find(turn.id()).orElseThrow();
        assertThat(stored.state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(stored.partsDelivered()).isEqualTo(2);
        assertThat(stored.deliveryAttempts()).isEqualTo(2);
        assertThat(stored.deliveryError()).isEqualTo("502 bad gateway");
        assertThat(stored.updatedAt()).isEqualTo(clock.instant());
        assertThat(turns().delivered(turn.id(), "m-9")).isTrue();
        assertThat(turns().recordDeliveryFailure(turn.id(), "late")).as("a delivered reply has no failures").isFalse();
    }

    @Test
    void sendIntents_markAPartInDoubtUntilItsAnswerIsRecorded_andTheAnswersKeepTheirMessageIds() {
        TurnRecord turn = running("1");
        assertThat(turns().recordSendIntent(turn.id(), 1)).as("not awaiting delivery yet").isFalse();
        turns().recordReply(turn.id(), "final", "three parts");

        assertThat(turns().recordSendIntent(turn.id(), 1)).isTrue();
        assertThat(turns().find(turn.id()).orElseThrow()).extracting(TurnRecord::sendingPart, TurnRecord::partsDelivered)
                .as("part 1 handed to the platform, no answer yet: in doubt").containsExactly(1, 0);
        assertThat(turns().recordPartSent(turn.id(), 1, "m-1")).isTrue();
        assertThat(turns().recordSendIntent(turn.id(), 1)).as("a confirmed part is never sent again").isFalse();
        assertThat(turns().recordSendIntent(turn.id(), 2)).isTrue();
        reopen(); // a crash while part 2 is on its way
        TurnRecord afterCrash = turns().find(turn.id()).orElseThrow();
        assertThat(afterCrash.sendingPart()).isEqualTo(2);
        assertThat(afterCrash.partsDelivered()).isEqualTo(1);
        assertThat(afterCrash.partMessageIds()).containsExactly("m-1");

        assertThat(turns().recordPartSent(turn.id(), 2, "m-2")).isTrue();
        assertThat(turns().delivered(turn.id(), "m-3")).isTrue();
        TurnRecord delivered = turns().find(turn.id()).orElseThrow();
        assertThat(delivered.partMessageIds()).containsExactly("m-1", "m-2");
        assertThat(delivered.replyMessageId()).isEqualTo("m-3");
        assertThat(delivered.sendingPart()).isZero();
    }

    @Test
    void recordReplyAndSend_recordsTheFirstPartsSendIntentInTheSameWrite() {
        TurnRecord sentAtOnce = running("1");
        TurnRecord kept = running("2");

        assertThat(turns().recordReplyAndSend(sentAtOnce.id(), "final", "the answer")).isTrue();
        assertThat(turns().recordReply(kept.id(), "final", "the other answer")).isTrue();
        assertThat(turns().recordReplyAndSend(sentAtOnce.id(), "final", "again")).as("one reply per turn").isFalse();

        reopen(); // a crash before the first part is sent
        assertThat(turns().find(sentAtOnce.id()).orElseThrow())
                .extracting(TurnRecord::state, TurnRecord::reply, TurnRecord::sendingPart, TurnRecord::partsDelivered)
                .containsExactly(TurnState.AWAITING_DELIVERY, "the answer", 1, 0);
        assertThat(turns().find(kept.id()).orElseThrow().sendingPart()).as("recorded without an intent").isZero();
        assertThat(turns().recordPartSent(sentAtOnce.id(), 1, "m-1")).isTrue();
        assertThat(turns().recordSendIntent(sentAtOnce.id(), 1)).as("a confirmed part is never sent again").isFalse();
    }

    @Test
    void permanentDeliveryFailure_makesTheTurnUndeliverable_andLatestStartedShowsIt_notTheQueuedOne() {
        TurnRecord first = running("1");
        turns().recordReply(first.id(), "final", "first answer");
        turns().delivered(first.id(), "m-1");
        TurnRecord second = running("1");
        turns().recordReply(second.id(), "final", "second answer");
        received("1", "still queued", null);
        running("2");

        assertThat(turns().refused(second.id(), "403 bot was blocked by the user")).isTrue();

        TurnRecord latest = turns().latestStarted(first.sessionKey()).orElseThrow();
        assertThat(latest.id()).isEqualTo(second.id());
        assertThat(latest.state()).isEqualTo(TurnState.UNDELIVERABLE);
        assertThat(latest.deliveryError()).isEqualTo("403 bot was blocked by the user");
        assertThat(turns().inState(TurnState.AWAITING_DELIVERY, 10)).isEmpty();
        assertThat(turns().delivered(second.id(), "m-2")).isFalse();
        assertThat(turns().latestStarted(keyOf(dm("2")))).get().extracting(TurnRecord::state).isEqualTo(TurnState.RUNNING);
        assertThat(turns().latestStarted(keyOf(dm("3")))).isEmpty();
    }

    @Test
    void latestStartedBefore_findsTheLanesNewestStartedTurnOlderThanTheGivenOne() {
        TurnRecord first = running("1");
        turns().recordReply(first.id(), "final", "first answer");
        TurnRecord second = running("1");
        turns().interrupt(second.id(), "interrupted");
        TurnRecord queued = received("1", "still queued", null);
        TurnRecord resume = turns().receive(second.sessionKey(), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();
        running("2");

        assertThat(turns().latestStartedBefore(first.sessionKey(), resume.id())).get().extracting(TurnRecord::id)
                .as("the waiting turn in between never started").isEqualTo(second.id());
        assertThat(turns().latestStartedBefore(first.sessionKey(), queued.id())).get().extracting(TurnRecord::id).isEqualTo(second.id());
        assertThat(turns().latestStartedBefore(first.sessionKey(), second.id())).get().extracting(TurnRecord::id).isEqualTo(first.id());
        assertThat(turns().latestStartedBefore(first.sessionKey(), first.id())).isEmpty();
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

        assertThat(turns().fail(turn.id(), "error", "IllegalStateException: boom")).isTrue();
        assertThat(turns().complete(turn.id(), "final")).isFalse();
        assertThat(turns().find(turn.id()).orElseThrow()).extracting(TurnRecord::state, TurnRecord::outcome, TurnRecord::error)
                .containsExactly(TurnState.FAILED, "error", "IllegalStateException: boom");
    }

    @Test
    void finish_interruptedAndCompleted_endARunningTurn() {
        TurnRecord cut = running("1");
        TurnRecord done = running("2");

        assertThat(turns().interrupt(cut.id(), "interrupted")).isTrue();
        assertThat(turns().complete(done.id(), "completed")).isTrue();

        assertThat(turns().find(cut.id()).orElseThrow().state()).isEqualTo(TurnState.INTERRUPTED);
        assertThat(turns().find(done.id()).orElseThrow().state()).isEqualTo(TurnState.DELIVERED);
        assertThat(turns().interrupt(done.id(), "interrupted")).as("a finished turn is not cut off").isFalse();
    }

    /**
     * The store's conditional update agrees with the transition table: every row of the table moves a turn that
     * is in the row's from-state to its to-state, and leaves a turn in any other state as it was.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(TurnTransition.class)
    void transition_movesOnlyFromTheRowsFromState(TurnTransition transition) {
        int chat = 0;
        for (TurnState state : TurnState.values()) {
            TurnRecord turn = inState(String.valueOf(++chat), state);
            TurnChange change = new TurnChange(turn.sessionId() != null ? turn.sessionId() : lane(String.valueOf(chat)).sessionId(),
                    null, "x", null, null, null, null);

            boolean moved = turnStore().transition(turn.id(), transition, change);

            assertThat(moved).as("%s from %s", transition, state).isEqualTo(state == transition.from());
            assertThat(turns().find(turn.id()).orElseThrow().state()).as("%s from %s", transition, state)
                    .isEqualTo(moved ? transition.to() : state);
        }
    }

    /** A turn of chat {@code chatId} driven to {@code state} along the table. */
    private TurnRecord inState(String chatId, TurnState state) {
        if (state == TurnState.RECEIVED) {
            return received(chatId, "waiting", null);
        }
        if (state == TurnState.CANCELLED) {
            TurnRecord t = received(chatId, "cancelled", null);
            turns().cancel(t.id(), "test");
            return t;
        }
        TurnRecord t = running(chatId);
        switch (state) {
            case RUNNING -> {
            }
            case AWAITING_DELIVERY -> turns().recordReply(t.id(), "final", "reply");
            case DELIVERED -> turns().complete(t.id(), "completed");
            case INTERRUPTED -> turns().interrupt(t.id(), "interrupted");
            case FAILED -> turns().fail(t.id(), "error", "test");
            case UNDELIVERABLE -> {
                turns().recordReply(t.id(), "final", "reply");
                turns().refused(t.id(), "403");
            }
            default -> throw new AssertionError(state);
        }
        assertThat(turns().find(t.id()).orElseThrow().state()).isEqualTo(state);
        return turns().find(t.id()).orElseThrow();
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
    void withdraw_givesTheMessageIdBack_soTheSendersRetryIsStored_whileACancelledMessageStaysDelivered() {
        SessionSource source = dm("1");
        TurnRecord withdrawn = received("1", "hello", "req-1");
        TurnRecord cancelled = received("1", "bye", "req-2");
        TurnRecord busy = running("2");

        assertThat(turns().withdraw(withdrawn.id(), "stopping; answered 503 (retry)")).isTrue();
        assertThat(turns().cancel(cancelled.id(), "/stop")).isTrue();
        assertThat(turns().withdraw(busy.id(), "no")).as("only a waiting turn is withdrawn").isFalse();

        TurnRecord gone = turns().find(withdrawn.id()).orElseThrow();
        assertThat(gone.state()).isEqualTo(TurnState.CANCELLED);
        assertThat(gone.outcome()).isEqualTo("stopping; answered 503 (retry)");
        assertThat(gone.platformMessageId()).isNull();
        assertThat(turns().find(cancelled.id()).orElseThrow().platformMessageId()).isEqualTo("req-2");
        assertThat(turns().find(busy.id()).orElseThrow().state()).isEqualTo(TurnState.RUNNING);

        reopen();
        Optional<TurnRecord> retry = turns().receive(keyOf(source), MessageEvent.text(source, "hello", "req-1", clock.instant()));
        assertThat(retry).as("the retry of a withdrawn message is a new turn").isPresent();
        assertThat(retry.orElseThrow().id()).isGreaterThan(withdrawn.id());
        assertThat(turns().receive(keyOf(source), MessageEvent.text(source, "hello", "req-1", clock.instant())))
                .as("and is deduplicated like any message").isEmpty();
        assertThat(turns().receive(keyOf(source), MessageEvent.text(source, "bye", "req-2", clock.instant())))
                .as("a cancelled message is still one delivered before").isEmpty();
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

        List<dev.herald.core.session.SessionKey> marked = recoverInterrupted(HOUR);

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

        assertThat(recoverInterrupted(HOUR)).isEmpty();

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

        assertThat(recoverInterrupted(HOUR)).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_bookkeepingRows_doNotMakeAnInterruptionFresh() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofHours(2));
        transcripts().append(turn.sessionId(), TranscriptRow.system("gateway note", clock.instant()));
        transcripts().append(turn.sessionId(), TranscriptRow.meta("{}", clock.instant()));

        assertThat(recoverInterrupted(HOUR)).isEmpty();
    }

    @Test
    void recoverInterrupted_lastRowWithoutTimestamp_countsAsFresh() {
        TurnRecord turn = running("1");
        transcripts().append(turn.sessionId(), new TranscriptRow(0, Role.ASSISTANT, "legacy", List.of(), null, null, null));
        clock.advance(Duration.ofDays(3));

        assertThat(recoverInterrupted(HOUR)).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_emptyTranscript_usesTheTurnStart() {
        SessionEntry lane = lane("1");
        TurnRecord turn = received("1", "", null);
        turns().start(turn.id(), lane.sessionId(), null);
        clock.advance(Duration.ofMinutes(59));

        assertThat(recoverInterrupted(HOUR)).containsExactly(lane.key());
    }

    @Test
    void recoverInterrupted_disabledWindow_treatsEveryTurnAsFresh() {
        TurnRecord turn = running("1");
        clock.advance(Duration.ofDays(30));

        assertThat(recoverInterrupted(Freshness.ofSeconds(0))).containsExactly(turn.sessionKey());
    }

    @Test
    void recoverInterrupted_resumePendingLane_keepsItsReasonAndIsCounted() {
        TurnRecord turn = running("1");
        sessions().markResumePending(turn.sessionKey(), ResumeReason.SHUTDOWN_TIMEOUT);
        var markedAt = clock.instant();
        clock.advance(Duration.ofMinutes(1));

        assertThat(recoverInterrupted(HOUR)).isEmpty();

        SessionEntry lane = sessions().find(turn.sessionKey()).orElseThrow();
        assertThat(lane.resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
        assertThat(lane.lastResumeMarkedAt()).isEqualTo(markedAt);
        assertThat(lane.interruptedRestarts()).isEqualTo(1);
    }

    @Test
    void recoverInterrupted_suspendedLane_isNotMarkedButCounted() {
        TurnRecord turn = running("1");
        sessions().suspend(turn.sessionKey(), SuspendReason.OPERATOR);

        assertThat(recoverInterrupted(HOUR)).isEmpty();

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

        assertThat(recoverInterrupted(HOUR)).isEmpty();

        assertThat(turns().find(waiting.id()).orElseThrow().state()).isEqualTo(TurnState.RECEIVED);
        assertThat(turns().find(awaiting.id()).orElseThrow().state()).isEqualTo(TurnState.AWAITING_DELIVERY);
        assertThat(sessions().find(awaiting.sessionKey()).orElseThrow().interruptedRestarts()).isZero();
    }

    @Test
    void recoverInterrupted_thenTheLaneCanStartAgain() {
        TurnRecord turn = running("1");
        recoverInterrupted(HOUR);
        TurnRecord resume = turns().receive(turn.sessionKey(), MessageEvent.resume(dm("1"), clock.instant())).orElseThrow();

        Optional<TurnRecord> started = turns().start(resume.id(), turn.sessionId(), null);

        assertThat(started).map(TurnRecord::origin).contains(MessageEvent.Origin.RESUME);
    }

    @Test
    void recoverInterrupted_repeatedCrashes_accumulateTheCounter() {
        for (int crash = 1; crash <= 3; crash++) {
            running("1");
            reopen();
            recoverInterrupted(HOUR);
            assertThat(sessions().find(keyOf(dm("1"))).orElseThrow().interruptedRestarts()).isEqualTo(crash);
        }
        assertThat(sessions().suspendStuckLoops(3)).containsExactly(keyOf(dm("1")));
    }
}
