package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.ChatType;
import dev.herald.core.session.ResetReason;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptSession;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The behaviour of {@link dev.herald.core.session.SessionStore}, for every store implementation. */
public abstract class SessionStoreContract extends StorageContract {

    @Test
    void getOrCreate_newKey_createsCleanLaneWithLiveTranscript() {
        SessionSource source = dm("1");
        SessionEntry entry = sessions().getOrCreate(keyOf(source), source);

        assertThat(entry.key()).isEqualTo(keyOf(source));
        assertThat(entry.resumePending()).isFalse();
        assertThat(entry.resumeReason()).isNull();
        assertThat(entry.lastResumeMarkedAt()).isNull();
        assertThat(entry.suspended()).isFalse();
        assertThat(entry.wasAutoReset()).isFalse();
        assertThat(entry.autoResetReason()).isNull();
        assertThat(entry.interruptedRestarts()).isZero();
        assertThat(entry.createdAt()).isEqualTo(clock.instant());
        assertThat(entry.origin()).isEqualTo(source);
        assertThat(entry.platform()).isEqualTo(CHAT);
        assertThat(entry.chatType()).isEqualTo(ChatType.DM);
        TranscriptSession transcript = transcripts().session(entry.sessionId()).orElseThrow();
        assertThat(transcript.ended()).isFalse();
        assertThat(transcript.sessionKey()).isEqualTo(entry.key().value());
        assertThat(sessions().find(entry.key())).contains(entry);
    }

    @Test
    void getOrCreate_existingLane_keepsSessionIdBumpsUpdatedAtAndStoresLatestOrigin() {
        SessionEntry first = lane("1");
        clock.advance(Duration.ofMinutes(5));
        SessionSource renamed = new SessionSource(CHAT, "1", ChatType.DM, "u1", "New Name", null, "Chat One");

        SessionEntry again = sessions().getOrCreate(first.key(), renamed);

        assertThat(again.sessionId()).isEqualTo(first.sessionId());
        assertThat(again.createdAt()).isEqualTo(first.createdAt());
        assertThat(again.updatedAt()).isEqualTo(clock.instant());
        assertThat(again.origin()).isEqualTo(renamed);
        assertThat(again.displayName()).isEqualTo("Chat One");
        assertThat(sessions().find(first.key())).contains(again);
    }

    @Test
    void getOrCreate_resumePendingLane_keepsSessionIdAndMark() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.SHUTDOWN_TIMEOUT);
        Instant markedAt = clock.instant();
        clock.advance(Duration.ofMinutes(1));

        SessionEntry again = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(again.sessionId()).isEqualTo(first.sessionId());
        assertThat(again.resumePending()).isTrue();
        assertThat(again.resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
        assertThat(again.lastResumeMarkedAt()).isEqualTo(markedAt);
        assertThat(again.wasAutoReset()).isFalse();
        assertThat(again.autoResetReason()).isNull();
    }

    @Test
    void getOrCreate_suspendedLane_startsFreshSessionAndEndsTheOldOneAsSuspended() {
        SessionEntry first = lane("1");
        sessions().suspend(first.key(), SuspendReason.OPERATOR);
        clock.advance(Duration.ofMinutes(1));

        SessionEntry next = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(next.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(next.suspended()).isFalse();
        assertThat(next.wasAutoReset()).isTrue();
        assertThat(next.autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
        assertThat(next.createdAt()).isEqualTo(clock.instant());
        TranscriptSession old = transcripts().session(first.sessionId()).orElseThrow();
        assertThat(old.endReason()).isEqualTo(EndReason.SUSPENDED);
        assertThat(old.endedAt()).isEqualTo(clock.instant());
        assertThat(transcripts().session(next.sessionId()).orElseThrow().ended()).isFalse();
        assertThat(sessions().find(first.key())).contains(next);
    }

    @Test
    void getOrCreate_suspendedAndResumePendingLane_suspensionWins() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        SessionEntry next = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(next.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(next.autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
        assertThat(next.resumePending()).isFalse();
        assertThat(next.resumeReason()).isNull();
        assertThat(next.lastResumeMarkedAt()).isNull();
    }

    @Test
    void getOrCreate_laneAfterSuspensionReset_isReturnedAsStoredNextTime() {
        SessionEntry first = lane("1");
        sessions().suspend(first.key(), SuspendReason.OPERATOR);
        SessionEntry fresh = sessions().getOrCreate(first.key(), dm("1"));

        SessionEntry again = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(again.sessionId()).isEqualTo(fresh.sessionId());
    }

    @Test
    void getOrCreate_compressedLane_followsTipAndHealsStoredEntry() {
        SessionEntry first = lane("1");
        transcripts().continueInChild(first.sessionId(), "child-1", clock.instant());

        SessionEntry next = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(next.sessionId()).isEqualTo("child-1");
        assertThat(sessions().find(first.key()).orElseThrow().sessionId()).isEqualTo("child-1");
    }

    @Test
    void getOrCreate_resumePendingCompressedLane_staysResumePendingOnTheTip() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT);
        transcripts().continueInChild(first.sessionId(), "child-1", clock.instant());
        clock.advance(Duration.ofSeconds(1));
        transcripts().continueInChild("child-1", "child-2", clock.instant());

        SessionEntry next = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(next.sessionId()).isEqualTo("child-2");
        assertThat(next.resumePending()).isTrue();
        assertThat(next.resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
        assertThat(next.wasAutoReset()).isFalse();
    }

    @Test
    void getOrCreate_suspendedCompressedLane_endsTheTipAndKeepsTheRootsCompression() {
        SessionEntry first = lane("1");
        transcripts().continueInChild(first.sessionId(), "child-1", clock.instant());
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        SessionEntry next = sessions().getOrCreate(first.key(), dm("1"));

        assertThat(next.sessionId()).isNotIn(first.sessionId(), "child-1");
        assertThat(transcripts().session("child-1").orElseThrow().endReason()).isEqualTo(EndReason.SUSPENDED);
        assertThat(transcripts().session(first.sessionId()).orElseThrow().endReason()).isEqualTo(EndReason.COMPRESSION);
    }

    @Test
    void find_unknownKey_isEmpty() {
        assertThat(sessions().find(keyOf(dm("nobody")))).isEmpty();
    }

    @Test
    void find_changesNothing() {
        SessionEntry first = lane("1");
        transcripts().continueInChild(first.sessionId(), "child-1", clock.instant());
        clock.advance(Duration.ofMinutes(1));

        assertThat(sessions().find(first.key())).contains(first);
    }

    @Test
    void markResumePending_existingLane_setsFlagReasonAndTime() {
        SessionEntry first = lane("1");
        clock.advance(Duration.ofSeconds(30));

        assertThat(sessions().markResumePending(first.key(), ResumeReason.SHUTDOWN_TIMEOUT)).isTrue();

        SessionEntry marked = sessions().find(first.key()).orElseThrow();
        assertThat(marked.resumePending()).isTrue();
        assertThat(marked.resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
        assertThat(marked.lastResumeMarkedAt()).isEqualTo(clock.instant());
        assertThat(marked.sessionId()).isEqualTo(first.sessionId());
    }

    @Test
    void markResumePending_unknownKey_returnsFalse() {
        assertThat(sessions().markResumePending(keyOf(dm("nobody")), ResumeReason.RESTART_TIMEOUT)).isFalse();
        assertThat(sessions().find(keyOf(dm("nobody")))).isEmpty();
    }

    @Test
    void markResumePending_suspendedLane_returnsFalseAndChangesNothing() {
        SessionEntry first = lane("1");
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        assertThat(sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT)).isFalse();

        SessionEntry stored = sessions().find(first.key()).orElseThrow();
        assertThat(stored.resumePending()).isFalse();
        assertThat(stored.resumeReason()).isNull();
        assertThat(stored.suspended()).isTrue();
    }

    @Test
    void markResumePending_customReason_isKept() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), new ResumeReason("manual"));

        assertThat(sessions().find(first.key()).orElseThrow().resumeReason()).isEqualTo(new ResumeReason("manual"));
    }

    @Test
    void clearResumePending_notPending_returnsFalse() {
        SessionEntry first = lane("1");

        assertThat(sessions().clearResumePending(first.key())).isFalse();
        assertThat(sessions().clearResumePending(keyOf(dm("nobody")))).isFalse();
    }

    @Test
    void clearResumePending_pending_returnsTrueAndClearsFlagReasonAndTime() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT);

        assertThat(sessions().clearResumePending(first.key())).isTrue();

        SessionEntry cleared = sessions().find(first.key()).orElseThrow();
        assertThat(cleared.resumePending()).isFalse();
        assertThat(cleared.resumeReason()).isNull();
        assertThat(cleared.lastResumeMarkedAt()).isNull();
        assertThat(sessions().clearResumePending(first.key())).isFalse();
    }

    @Test
    void suspend_unknownKey_returnsFalse() {
        assertThat(sessions().suspend(keyOf(dm("nobody")), SuspendReason.OPERATOR)).isFalse();
    }

    @Test
    void suspend_existingLane_returnsTrueAndIsStored() {
        SessionEntry first = lane("1");

        assertThat(sessions().suspend(first.key(), SuspendReason.OPERATOR)).isTrue();
        assertThat(sessions().find(first.key()).orElseThrow().suspended()).isTrue();
    }

    @Test
    void suspend_recordsTheReasonAndTime_andASecondSuspensionKeepsTheFirst() {
        SessionEntry first = lane("1");
        Instant at = clock.instant();

        sessions().suspend(first.key(), SuspendReason.STOP_COMMAND);
        clock.advance(Duration.ofMinutes(5));
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        SessionEntry stored = sessions().find(first.key()).orElseThrow();
        assertThat(stored.suspendReason()).isEqualTo(SuspendReason.STOP_COMMAND);
        assertThat(stored.suspendedAt()).isEqualTo(at);
    }

    @Test
    void listResumePending_returnsPendingUnsuspendedLanesOldestMarkFirst() {
        SessionEntry a = lane("a");
        SessionEntry b = lane("b");
        SessionEntry c = lane("c");
        SessionEntry d = lane("d");
        lane("idle");
        sessions().markResumePending(b.key(), ResumeReason.RESTART_TIMEOUT);
        clock.advance(Duration.ofSeconds(1));
        sessions().markResumePending(a.key(), ResumeReason.SHUTDOWN_TIMEOUT);
        clock.advance(Duration.ofSeconds(1));
        sessions().markResumePending(c.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().markResumePending(d.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().suspend(c.key(), SuspendReason.OPERATOR);

        List<SessionKey> keys = sessions().listResumePending(Optional.empty()).stream().map(SessionEntry::key).toList();

        assertThat(keys).containsExactly(b.key(), a.key(), d.key());
    }

    @Test
    void listResumePending_withPlatform_listsOnlyThatPlatformsLanes() {
        SessionSource here = dm("1");
        SessionSource there = on(OTHER, "2");
        sessions().getOrCreate(keyOf(here), here);
        sessions().getOrCreate(keyOf(there), there);
        sessions().markResumePending(keyOf(here), ResumeReason.RESTART_TIMEOUT);
        sessions().markResumePending(keyOf(there), ResumeReason.RESTART_TIMEOUT);

        assertThat(sessions().listResumePending(Optional.of(OTHER))).extracting(SessionEntry::key).containsExactly(keyOf(there));
        assertThat(sessions().listResumePending(Optional.of(CHAT))).extracting(SessionEntry::key).containsExactly(keyOf(here));
    }

    @Test
    void countInterruption_addsOnePerCallAndIgnoresUnknownKeys() {
        SessionEntry a = lane("a");
        SessionEntry b = lane("b");

        sessions().countInterruption(List.of(a.key(), b.key(), keyOf(dm("nobody"))));
        sessions().countInterruption(List.of(a.key()));

        assertThat(sessions().find(a.key()).orElseThrow().interruptedRestarts()).isEqualTo(2);
        assertThat(sessions().find(b.key()).orElseThrow().interruptedRestarts()).isEqualTo(1);
        assertThat(sessions().find(keyOf(dm("nobody")))).isEmpty();
    }

    @Test
    void clearInterruptions_setsTheCounterToZero() {
        SessionEntry a = lane("a");
        sessions().countInterruption(List.of(a.key()));

        sessions().clearInterruptions(a.key());

        assertThat(sessions().find(a.key()).orElseThrow().interruptedRestarts()).isZero();
    }

    @Test
    void suspendStuckLoops_suspendsLanesAtOrOverThresholdAndZeroesTheirCounters() {
        SessionEntry at = lane("at");
        SessionEntry over = lane("over");
        SessionEntry below = lane("below");
        for (int i = 0; i < 3; i++) {
            sessions().countInterruption(List.of(at.key(), over.key()));
        }
        sessions().countInterruption(List.of(over.key(), below.key()));
        sessions().countInterruption(List.of(below.key()));

        List<SessionKey> suspended = sessions().suspendStuckLoops(3);

        assertThat(suspended).containsExactlyInAnyOrder(at.key(), over.key());
        assertThat(sessions().find(at.key()).orElseThrow()).matches(SessionEntry::suspended).matches(e -> e.interruptedRestarts() == 0)
                .matches(e -> e.suspendReason() == SuspendReason.STUCK_LOOP);
        assertThat(sessions().find(over.key()).orElseThrow()).matches(SessionEntry::suspended).matches(e -> e.interruptedRestarts() == 0);
        assertThat(sessions().find(below.key()).orElseThrow()).matches(e -> !e.suspended()).matches(e -> e.interruptedRestarts() == 2);
        assertThat(sessions().suspendStuckLoops(3)).isEmpty();
    }

    @Test
    void suspendStuckLoops_resumePendingLane_nextLookupStartsFresh() {
        SessionEntry stuck = lane("1");
        sessions().markResumePending(stuck.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().countInterruption(List.of(stuck.key()));
        sessions().countInterruption(List.of(stuck.key()));
        sessions().countInterruption(List.of(stuck.key()));
        sessions().suspendStuckLoops(3);

        SessionEntry next = sessions().getOrCreate(stuck.key(), dm("1"));

        assertThat(next.sessionId()).isNotEqualTo(stuck.sessionId());
        assertThat(next.autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
        assertThat(next.resumePending()).isFalse();
    }

    @Test
    void suspendStuckLoops_thresholdBelowOne_isRejected() {
        assertThatThrownBy(() -> sessions().suspendStuckLoops(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reset_endsOldTranscriptAndClearsSuspensionMarkAndCounter() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().countInterruption(List.of(first.key()));
        sessions().addUsage(first.key(), 10, 20);
        sessions().suspend(first.key(), SuspendReason.OPERATOR);
        clock.advance(Duration.ofMinutes(1));

        SessionEntry reset = sessions().reset(first.key(), dm("1"));

        assertThat(reset.sessionId()).isNotEqualTo(first.sessionId());
        assertThat(reset.suspended()).isFalse();
        assertThat(reset.resumePending()).isFalse();
        assertThat(reset.resumeReason()).isNull();
        assertThat(reset.interruptedRestarts()).isZero();
        assertThat(reset.wasAutoReset()).isFalse();
        assertThat(reset.inputTokens()).isZero();
        TranscriptSession old = transcripts().session(first.sessionId()).orElseThrow();
        assertThat(old.endReason()).isEqualTo(EndReason.SESSION_RESET);
        assertThat(old.endedAt()).isEqualTo(clock.instant());
        assertThat(sessions().find(first.key())).contains(reset);
    }

    @Test
    void reset_unknownKey_createsTheLane() {
        SessionSource source = dm("new");

        SessionEntry reset = sessions().reset(keyOf(source), source);

        assertThat(sessions().find(keyOf(source))).contains(reset);
        assertThat(transcripts().session(reset.sessionId())).isPresent();
    }

    @Test
    void addUsage_accumulatesTokens() {
        SessionEntry first = lane("1");

        sessions().addUsage(first.key(), 100, 7);
        sessions().addUsage(first.key(), 5, 3);

        SessionEntry stored = sessions().find(first.key()).orElseThrow();
        assertThat(stored.inputTokens()).isEqualTo(105);
        assertThat(stored.outputTokens()).isEqualTo(10);
    }

    @Test
    void count_countsLanes() {
        assertThat(sessions().count()).isZero();
        lane("1");
        lane("2");
        lane("1");

        assertThat(sessions().count()).isEqualTo(2);
    }

    @Test
    void everyMark_survivesCloseAndReopen() {
        SessionEntry pending = lane("pending");
        SessionEntry suspended = lane("suspended");
        SessionEntry counted = lane("counted");
        sessions().markResumePending(pending.key(), ResumeReason.SHUTDOWN_TIMEOUT);
        sessions().suspend(suspended.key(), SuspendReason.OPERATOR);
        sessions().countInterruption(List.of(counted.key(), pending.key()));
        sessions().addUsage(counted.key(), 3, 4);
        List<Optional<SessionEntry>> before = List.of(sessions().find(pending.key()), sessions().find(suspended.key()),
                sessions().find(counted.key()));

        reopen();

        assertThat(List.of(sessions().find(pending.key()), sessions().find(suspended.key()), sessions().find(counted.key())))
                .isEqualTo(before);
        assertThat(sessions().listResumePending(Optional.empty())).extracting(SessionEntry::key).containsExactly(pending.key());
        assertThat(sessions().getOrCreate(suspended.key(), dm("suspended")).autoResetReason()).isEqualTo(ResetReason.SUSPENDED);
    }

    @Test
    void clearedMark_staysClearedAfterReopen() {
        SessionEntry first = lane("1");
        sessions().markResumePending(first.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().clearResumePending(first.key());

        reopen();

        assertThat(sessions().find(first.key()).orElseThrow().resumePending()).isFalse();
    }

    @Test
    void search_filtersByStateAndTextNewestFirst() {
        SessionEntry a = lane("101");
        clock.advance(Duration.ofMinutes(1));
        SessionEntry b = lane("202");
        clock.advance(Duration.ofMinutes(1));
        SessionEntry c = lane("303");
        sessions().markResumePending(a.key(), ResumeReason.SHUTDOWN_TIMEOUT);
        sessions().suspend(b.key(), SuspendReason.OPERATOR);

        assertThat(sessions().search(dev.herald.core.session.SessionQuery.all(10))).extracting(SessionEntry::key)
                .containsExactly(c.key(), b.key(), a.key());
        assertThat(sessions().search(query(dev.herald.core.session.SessionQuery.State.RESUME_PENDING, null)))
                .extracting(SessionEntry::key).containsExactly(a.key());
        assertThat(sessions().search(query(dev.herald.core.session.SessionQuery.State.SUSPENDED, null)))
                .extracting(SessionEntry::key).containsExactly(b.key());
        assertThat(sessions().search(query(dev.herald.core.session.SessionQuery.State.ACTIVE, null)))
                .extracting(SessionEntry::key).containsExactly(c.key());
        assertThat(sessions().search(query(dev.herald.core.session.SessionQuery.State.ALL, "30")))
                .extracting(SessionEntry::key).containsExactly(c.key());
        assertThat(sessions().search(query(dev.herald.core.session.SessionQuery.State.ALL, "%"))).isEmpty();
    }

    @Test
    void search_pagesWithLimitAndOffset() {
        for (int i = 0; i < 5; i++) {
            lane("p" + i);
            clock.advance(Duration.ofSeconds(1));
        }
        var firstPage = sessions().search(new dev.herald.core.session.SessionQuery(
                dev.herald.core.session.SessionQuery.State.ALL, Optional.empty(), Optional.empty(), 2, 0));
        var secondPage = sessions().search(new dev.herald.core.session.SessionQuery(
                dev.herald.core.session.SessionQuery.State.ALL, Optional.empty(), Optional.empty(), 2, 2));
        assertThat(firstPage).extracting(e -> e.key().value()).allMatch(k -> k.endsWith("p4") || k.endsWith("p3"));
        assertThat(secondPage).extracting(e -> e.key().value()).allMatch(k -> k.endsWith("p2") || k.endsWith("p1"));
    }

    private static dev.herald.core.session.SessionQuery query(dev.herald.core.session.SessionQuery.State state, String text) {
        return new dev.herald.core.session.SessionQuery(state, Optional.empty(), Optional.ofNullable(text), 50, 0);
    }

    @Test
    void rename_knownLane_storesTheTitle_andAResetKeepsIt() {
        SessionEntry first = lane("1");

        assertThat(sessions().rename(first.key(), "  Trip to Lisbon  ")).isTrue();
        sessions().reset(first.key(), first.origin());

        assertThat(sessions().find(first.key()).orElseThrow().title()).isEqualTo("Trip to Lisbon");
        assertThat(sessions().rename(first.key(), " ")).isTrue();
        assertThat(sessions().find(first.key()).orElseThrow().title()).isNull();
    }

    @Test
    void rename_longTitle_keepsTheFirst200Characters() {
        SessionEntry first = lane("1");

        sessions().rename(first.key(), "x".repeat(300));

        assertThat(sessions().find(first.key()).orElseThrow().title()).hasSize(200);
    }

    @Test
    void rename_unknownKey_isFalseAndCreatesNothing() {
        SessionKey unknown = keyOf(dm("nobody"));

        assertThat(sessions().rename(unknown, "title")).isFalse();
        assertThat(sessions().find(unknown)).isEmpty();
    }

    @Test
    void hide_knownLane_recordsTheFirstTime_keepsTheTranscript_andSearchStillFindsIt() {
        SessionEntry first = lane("1");
        transcripts().append(first.sessionId(), dev.herald.core.transcript.TranscriptRow.user("keep me", clock.instant()));
        Instant hiddenAt = clock.instant();

        assertThat(sessions().hide(first.key())).isTrue();
        clock.advance(Duration.ofMinutes(1));
        assertThat(sessions().hide(first.key())).isTrue();

        SessionEntry hidden = sessions().find(first.key()).orElseThrow();
        assertThat(hidden.hidden()).isTrue();
        assertThat(hidden.hiddenAt()).isEqualTo(hiddenAt);
        assertThat(transcripts().load(first.sessionId())).extracting(dev.herald.core.transcript.TranscriptRow::content).containsExactly("keep me");
        assertThat(sessions().search(dev.herald.core.session.SessionQuery.all(10))).extracting(SessionEntry::key).contains(first.key());
        assertThat(sessions().hide(keyOf(dm("nobody")))).isFalse();
    }

    @Test
    void unsuspend_suspendedLane_nextLookupContinuesTheSameTranscript() {
        SessionEntry first = lane("1");
        sessions().countInterruption(List.of(first.key()));
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        assertThat(sessions().unsuspend(first.key())).isTrue();

        SessionEntry again = sessions().getOrCreate(first.key(), first.origin());
        assertThat(again.suspended()).isFalse();
        assertThat(again.suspendedAt()).isNull();
        assertThat(again.interruptedRestarts()).isZero();
        assertThat(again.sessionId()).isEqualTo(first.sessionId());
        assertThat(sessions().unsuspend(first.key())).as("not suspended any more").isFalse();
    }

    @Test
    void modelChoice_chosenThenReopened_isKeptPerLaneAndClearedBackToTheDefault() {
        SessionKey alice = keyOf(dm("alice"));
        SessionKey bob = keyOf(dm("bob"));
        assertThat(storage.modelChoices().chosen(alice)).isEmpty();

        storage.modelChoices().choose(alice, "fast");
        storage.modelChoices().choose(alice, "vision");
        storage.modelChoices().choose(bob, "fast");
        reopen();

        assertThat(storage.modelChoices().chosen(alice)).contains("vision");
        assertThat(storage.modelChoices().chosen(bob)).contains("fast");
        storage.modelChoices().choose(alice, null);
        assertThat(storage.modelChoices().chosen(alice)).isEmpty();
        assertThat(storage.modelChoices().chosen(bob)).contains("fast");
    }

    @Test
    void chatPreferences_setThenReopened_areKeptPerLaneAndName_andClearedBackToTheDefault() {
        SessionKey alice = keyOf(dm("alice"));
        SessionKey bob = keyOf(dm("bob"));
        assertThat(storage.chatPreferences().get(alice, "voice")).isEmpty();

        storage.chatPreferences().set(alice, "voice", "on");
        storage.chatPreferences().set(alice, "voice", "tts");
        storage.chatPreferences().set(alice, "footer", "on");
        storage.chatPreferences().set(bob, "voice", "off");
        reopen();

        assertThat(storage.chatPreferences().get(alice, "voice")).contains("tts");
        assertThat(storage.chatPreferences().get(alice, "footer")).contains("on");
        assertThat(storage.chatPreferences().get(bob, "voice")).contains("off");
        storage.chatPreferences().set(alice, "voice", null);
        assertThat(storage.chatPreferences().get(alice, "voice")).isEmpty();
        assertThat(storage.chatPreferences().get(alice, "footer")).contains("on");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> storage.chatPreferences().set(bob, "voice", "x".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(storage.chatPreferences().get(bob, "voice")).as("a refused value changes nothing").contains("off");
    }
}
