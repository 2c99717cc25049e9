package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.Conversation;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lane's conversations ({@code SessionStore.conversations}, {@code /sessions}), going back to one
 * ({@code SessionStore.switchTo}, {@code /resume}) and the turns a day's usage adds up ({@code TurnStore.startedSince},
 * {@code /usage}), for every store implementation.
 */
public abstract class ConversationsContract extends StorageContract {

    private void say(SessionEntry lane, String user, String answer) {
        transcripts().append(lane.sessionId(), TranscriptRow.user(user, clock.instant()));
        transcripts().append(lane.sessionId(), TranscriptRow.meta("bookkeeping", clock.instant()));
        transcripts().append(lane.sessionId(), TranscriptRow.assistant(answer, clock.instant()));
        clock.advance(Duration.ofMinutes(1));
    }

    @Test
    void conversations_listTheCurrentFirstThenTheNewest_withTitlesFirstMessagesAndCounts() {
        SessionEntry first = lane("1");
        say(first, "plan the trip to Lisbon", "Sure.");
        say(first, "and the hotel?", "Booked.");
        sessions().rename(first.key(), "Lisbon");
        SessionEntry second = sessions().reset(first.key(), dm("1"));
        sessions().rename(first.key(), null);
        say(second, "fix the build", "Done.");
        SessionEntry third = sessions().reset(first.key(), dm("1"));
        say(third, "what is for dinner", "Soup.");
        lane("2"); // another chat's lane is not listed

        List<Conversation> list = sessions().conversations(first.key(), 10);

        assertThat(list).extracting(Conversation::sessionId).containsExactly(third.sessionId(), second.sessionId(), first.sessionId());
        assertThat(list).extracting(Conversation::current).containsExactly(true, false, false);
        assertThat(list).extracting(Conversation::title).containsExactly(null, null, "Lisbon");
        assertThat(list).extracting(Conversation::firstMessage)
                .containsExactly("what is for dinner", "fix the build", "plan the trip to Lisbon");
        assertThat(list).extracting(Conversation::messages).containsExactly(2L, 2L, 4L);
        assertThat(list.get(2).startedAt()).isEqualTo(first.createdAt());
        assertThat(list.get(2).lastAt()).isEqualTo(first.createdAt().plus(Duration.ofMinutes(1)));
        assertThat(sessions().conversations(first.key(), 2)).hasSize(2);
        assertThat(sessions().conversations(new SessionKey("agent:main:loopback:dm:nobody"), 10)).isEmpty();
    }

    @Test
    void conversations_followCompressionToTheTip() {
        SessionEntry first = lane("1");
        say(first, "long talk", "yes");
        transcripts().continueInChild(first.sessionId(), "child-1", clock.instant());
        sessions().getOrCreate(first.key(), dm("1"));

        List<Conversation> list = sessions().conversations(first.key(), 10);

        assertThat(list).extracting(Conversation::sessionId).containsExactly("child-1");
        assertThat(list.get(0).current()).isTrue();
    }

    @Test
    void switchTo_makesAnOlderConversationCurrent_andTheLeftOneStaysListedUnderItsTitle() {
        SessionEntry first = lane("1");
        say(first, "plan the trip", "Sure.");
        sessions().rename(first.key(), "Trip");
        SessionEntry second = sessions().reset(first.key(), dm("1"));
        sessions().rename(first.key(), "Build");
        say(second, "fix the build", "Done.");
        sessions().markResumePending(first.key());
        sessions().countInterruption(List.of(first.key()));
        clock.advance(Duration.ofMinutes(1));

        SessionEntry back = sessions().switchTo(first.key(), first.sessionId()).orElseThrow();

        assertThat(back.sessionId()).isEqualTo(first.sessionId());
        assertThat(back.title()).isEqualTo("Trip");
        assertThat(back.resumePending()).isFalse();
        assertThat(back.interruptedRestarts()).isZero();
        assertThat(sessions().find(first.key())).contains(back);
        assertThat(transcripts().session(first.sessionId()).orElseThrow().ended()).isFalse();
        assertThat(transcripts().session(second.sessionId()).orElseThrow().endReason()).isEqualTo(EndReason.SESSION_RESET);
        assertThat(transcripts().load(sessions().getOrCreate(first.key(), dm("1")).sessionId()))
                .extracting(TranscriptRow::content).contains("plan the trip");
        List<Conversation> list = sessions().conversations(first.key(), 10);
        assertThat(list).extracting(Conversation::sessionId).containsExactly(first.sessionId(), second.sessionId());
        assertThat(list).extracting(Conversation::title).containsExactly("Trip", "Build");

        reopen(); // durable: the lane and the titles survive a restart, and switching back works the same
        SessionEntry again = sessions().switchTo(first.key(), second.sessionId()).orElseThrow();
        assertThat(again.sessionId()).isEqualTo(second.sessionId());
        assertThat(again.title()).isEqualTo("Build");
        assertThat(sessions().conversations(first.key(), 10)).extracting(Conversation::title).containsExactly("Build", "Trip");
    }

    @Test
    void switchTo_refusesAnotherLanesTranscriptAndUnknownIds_andKeepsTheCurrentOne() {
        SessionEntry mine = lane("1");
        SessionEntry theirs = lane("2");

        assertThat(sessions().switchTo(mine.key(), theirs.sessionId())).isEmpty();
        assertThat(sessions().switchTo(mine.key(), "no-such-session")).isEmpty();
        assertThat(sessions().switchTo(new SessionKey("agent:main:loopback:dm:nobody"), mine.sessionId())).isEmpty();
        assertThat(sessions().switchTo(mine.key(), mine.sessionId())).contains(sessions().find(mine.key()).orElseThrow());
        assertThat(sessions().find(mine.key()).orElseThrow().sessionId()).isEqualTo(mine.sessionId());
        assertThat(sessions().find(theirs.key()).orElseThrow().sessionId()).isEqualTo(theirs.sessionId());
    }

    @Test
    void switchTo_liftsASuspension_andTheSuspendedTranscriptKeepsTheLanesTitle() {
        SessionEntry first = lane("1");
        sessions().rename(first.key(), "Before");
        sessions().suspend(first.key(), SuspendReason.OPERATOR);
        SessionEntry fresh = sessions().getOrCreate(first.key(), dm("1"));
        sessions().suspend(first.key(), SuspendReason.OPERATOR);

        SessionEntry back = sessions().switchTo(first.key(), first.sessionId()).orElseThrow();

        assertThat(back.suspended()).isFalse();
        assertThat(back.title()).isEqualTo("Before");
        assertThat(sessions().getOrCreate(first.key(), dm("1")).sessionId()).isEqualTo(first.sessionId());
        assertThat(sessions().conversations(first.key(), 10)).extracting(Conversation::sessionId)
                .containsExactlyInAnyOrder(first.sessionId(), fresh.sessionId());
    }

    private TurnRecord startedTurn(SessionEntry lane, String text) {
        SessionSource source = dm(lane.key().value().substring(lane.key().value().lastIndexOf(':') + 1));
        TurnRecord received = turns().receive(lane.key(), MessageEvent.text(source, text, null, clock.instant())).orElseThrow();
        return turns().start(received.id(), lane.sessionId(), TranscriptRow.user(text, clock.instant())).orElseThrow();
    }

    @Test
    void startedSince_listsTheLanesStartedTurnsFromThatInstant_newestFirst_withTheirUsage() {
        SessionEntry lane = lane("1");
        TurnRecord morning = startedTurn(lane, "morning");
        turns().addUsage(morning.id(), 100, 10);
        turns().fail(morning.id(), "error", "boom");
        clock.advance(Duration.ofHours(2));
        TurnRecord noon = startedTurn(lane, "noon");
        turns().addUsage(noon.id(), 50, 5);
        SessionSource source = dm("1");
        turns().receive(lane.key(), MessageEvent.text(source, "still waiting", null, clock.instant())); // never started
        startedTurn(lane("2"), "another chat");

        assertThat(turns().startedSince(lane.key(), clock.instant().minus(Duration.ofHours(3)), 10))
                .extracting(TurnRecord::text, TurnRecord::inputTokens, TurnRecord::outputTokens)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("noon", 50L, 5L), org.assertj.core.groups.Tuple.tuple("morning", 100L, 10L));
        assertThat(turns().startedSince(lane.key(), clock.instant().minus(Duration.ofHours(1)), 10)).extracting(TurnRecord::text)
                .containsExactly("noon");
        assertThat(turns().startedSince(lane.key(), clock.instant().minus(Duration.ofHours(3)), 1)).extracting(TurnRecord::text)
                .containsExactly("noon");
    }
}
