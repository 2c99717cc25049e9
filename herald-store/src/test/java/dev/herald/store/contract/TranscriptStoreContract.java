package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.SessionSource;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.EndReason;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptSession;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The behaviour of {@link dev.herald.core.transcript.TranscriptStore}, for every store implementation. */
public abstract class TranscriptStoreContract extends StorageContract {

    private void create(String id) {
        transcripts().createSession(id, "agent:main:loopback:dm:1", null, clock.instant());
    }

    @Test
    void append_assignsDenseSeqFromOnePerSession() {
        create("s1");
        create("s2");

        TranscriptRow first = transcripts().append("s1", TranscriptRow.user("hi", clock.instant()));
        TranscriptRow other = transcripts().append("s2", TranscriptRow.user("other", clock.instant()));
        TranscriptRow second = transcripts().append("s1", TranscriptRow.assistant("hello", clock.instant()));

        assertThat(first.seq()).isEqualTo(1);
        assertThat(second.seq()).isEqualTo(2);
        assertThat(other.seq()).isEqualTo(1);
        assertThat(transcripts().rowCount("s1")).isEqualTo(2);
    }

    @Test
    void load_returnsEveryFieldInOrder() {
        create("s1");
        Instant t = clock.instant();
        List<TranscriptRow> written = List.of(
                TranscriptRow.meta("{\"model\":\"m\"}", t),
                TranscriptRow.user("what is the weather?", t),
                TranscriptRow.assistantToolCalls(null, List.of(new ToolCall("call-1", "weather", "{\"city\":\"Oslo\"}"),
                        new ToolCall("call-2", "clock", "not json {")), t.plusMillis(1)),
                TranscriptRow.tool("call-1", "weather", "rain", t.plusMillis(2)),
                TranscriptRow.tool("call-2", "clock", "", t.plusMillis(3)),
                new TranscriptRow(0, Role.ASSISTANT, "legacy row", List.of(), null, null, null),
                TranscriptRow.system("note", t.plusMillis(4)));
        for (TranscriptRow row : written) {
            transcripts().append("s1", row);
        }

        List<TranscriptRow> loaded = transcripts().load("s1");

        assertThat(loaded).hasSize(written.size());
        for (int i = 0; i < written.size(); i++) {
            assertThat(loaded.get(i)).isEqualTo(written.get(i).withSeq(i + 1));
        }
    }

    @Test
    void append_returnsTheRowAsLoadedLater() {
        create("s1");
        TranscriptRow returned = transcripts().append("s1", TranscriptRow.user("hi", Instant.parse("2026-04-18T12:00:00.123456789Z")));

        assertThat(transcripts().load("s1")).containsExactly(returned);
    }

    @Test
    void load_unknownSession_isEmpty() {
        assertThat(transcripts().load("nope")).isEmpty();
        assertThat(transcripts().rowCount("nope")).isZero();
    }

    @Test
    void append_unknownSession_failsAndStoresNothing() {
        assertThatThrownBy(() -> transcripts().append("nope", TranscriptRow.user("hi", clock.instant())))
                .isInstanceOf(StoreException.class).hasMessageContaining("nope");
        assertThat(transcripts().load("nope")).isEmpty();
    }

    @Test
    void createSession_existingId_isAnError() {
        create("s1");

        assertThatThrownBy(() -> create("s1")).isInstanceOf(RuntimeException.class).hasMessageContaining("s1");
    }

    @Test
    void session_returnsWhatWasCreated() {
        transcripts().createSession("p", "key", null, clock.instant());
        transcripts().createSession("c", "key", "p", clock.instant());

        assertThat(transcripts().session("c")).contains(new TranscriptSession("c", "key", "p", clock.instant(), null, null));
        assertThat(transcripts().session("nope")).isEmpty();
    }

    @Test
    void endSession_endedSession_keepsItsFirstEnd() {
        create("s1");
        Instant firstEnd = clock.instant();
        assertThat(transcripts().endSession("s1", EndReason.SESSION_RESET, firstEnd)).isTrue();
        clock.advance(Duration.ofMinutes(1));

        assertThat(transcripts().endSession("s1", EndReason.SUSPENDED, clock.instant())).isTrue();

        TranscriptSession s = transcripts().session("s1").orElseThrow();
        assertThat(s.endReason()).isEqualTo(EndReason.SESSION_RESET);
        assertThat(s.endedAt()).isEqualTo(firstEnd);
    }

    @Test
    void endSession_unknownSession_returnsFalse() {
        assertThat(transcripts().endSession("nope", EndReason.SESSION_RESET, clock.instant())).isFalse();
    }

    @Test
    void continueInChild_endsParentWithCompressionAndCreatesChild() {
        create("p");
        clock.advance(Duration.ofMinutes(1));

        TranscriptSession child = transcripts().continueInChild("p", "c", clock.instant());

        assertThat(child).isEqualTo(new TranscriptSession("c", "agent:main:loopback:dm:1", "p", clock.instant(), null, null));
        assertThat(transcripts().session("c")).contains(child);
        TranscriptSession parent = transcripts().session("p").orElseThrow();
        assertThat(parent.endReason()).isEqualTo(EndReason.COMPRESSION);
        assertThat(parent.endedAt()).isEqualTo(clock.instant());
    }

    @Test
    void continueInChild_unknownParent_failsAndCreatesNothing() {
        assertThatThrownBy(() -> transcripts().continueInChild("nope", "c", clock.instant())).isInstanceOf(StoreException.class);

        assertThat(transcripts().session("c")).isEmpty();
    }

    @Test
    void continueInChild_existingChildId_failsAndLeavesParentLive() {
        create("p");
        create("c");

        assertThatThrownBy(() -> transcripts().continueInChild("p", "c", clock.instant())).isInstanceOf(RuntimeException.class);

        assertThat(transcripts().session("p").orElseThrow().ended()).isFalse();
    }

    @Test
    void compressionTip_sessionWithoutChildren_isItself() {
        create("s1");

        assertThat(transcripts().compressionTip("s1")).isEqualTo("s1");
        assertThat(transcripts().compressionTip("unknown")).isEqualTo("unknown");
    }

    @Test
    void compressionTip_followsEveryHopToTheNewestDescendant() {
        create("root");
        transcripts().continueInChild("root", "c1", clock.instant());
        clock.advance(Duration.ofSeconds(1));
        transcripts().continueInChild("c1", "c2", clock.instant());

        assertThat(transcripts().compressionTip("root")).isEqualTo("c2");
        assertThat(transcripts().compressionTip("c1")).isEqualTo("c2");
        assertThat(transcripts().compressionTip("c2")).isEqualTo("c2");
    }

    @Test
    void compressionTip_severalChildren_takesTheNewest() {
        create("root");
        transcripts().continueInChild("root", "older", clock.instant());
        clock.advance(Duration.ofSeconds(1));
        transcripts().createSession("newer", "k", "root", clock.instant());

        assertThat(transcripts().compressionTip("root")).isEqualTo("newer");
    }

    @Test
    void compressionTip_childStartedBeforeTheEnd_isNotFollowed() {
        create("root");
        transcripts().createSession("early", "k", "root", clock.instant());
        clock.advance(Duration.ofSeconds(1));
        transcripts().endSession("root", EndReason.COMPRESSION, clock.instant());

        assertThat(transcripts().compressionTip("root")).isEqualTo("root");
    }

    @Test
    void compressionTip_parentEndedForAnotherReason_isNotFollowed() {
        create("root");
        transcripts().createSession("child", "k", "root", clock.instant());
        transcripts().endSession("root", EndReason.SESSION_RESET, clock.instant());

        assertThat(transcripts().compressionTip("root")).isEqualTo("root");
    }

    @Test
    void compressionTip_longChain_stopsAfter32Hops() {
        create("s0");
        for (int i = 1; i <= 40; i++) {
            clock.advance(Duration.ofSeconds(1));
            transcripts().continueInChild("s" + (i - 1), "s" + i, clock.instant());
        }

        assertThat(transcripts().compressionTip("s0")).isEqualTo("s32");
        assertThat(transcripts().compressionTip("s8")).isEqualTo("s40");
    }

    @Test
    void rowsAndLineage_surviveCloseAndReopen() {
        create("p");
        transcripts().append("p", TranscriptRow.user("one", clock.instant()));
        transcripts().continueInChild("p", "c", clock.instant());
        transcripts().append("c", TranscriptRow.assistant("two", clock.instant()));
        List<TranscriptRow> parentRows = transcripts().load("p");

        reopen();

        assertThat(transcripts().load("p")).isEqualTo(parentRows);
        assertThat(transcripts().load("c")).extracting(TranscriptRow::content).containsExactly("two");
        assertThat(transcripts().compressionTip("p")).isEqualTo("c");
        assertThat(transcripts().append("c", TranscriptRow.user("three", clock.instant())).seq()).isEqualTo(2);
    }

    // The transcript cache (HistoryCache): a load after appends, starts and purges reads what a fresh store reads.

    @Test
    void load_afterAppendsToATranscriptReadBefore_equalsWhatAFreshStoreReads() {
        create("s1");
        transcripts().append("s1", TranscriptRow.user("one", clock.instant()));
        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one");
        transcripts().append("s1", TranscriptRow.assistant("two", clock.instant()));
        transcripts().append("s1", TranscriptRow.assistantToolCalls(null, List.of(new ToolCall("c1", "clock", "{}")), clock.instant()));
        transcripts().append("s1", TranscriptRow.tool("c1", "clock", "noon", clock.instant()));

        List<TranscriptRow> cached = transcripts().load("s1");
        reopen();

        assertThat(cached).extracting(TranscriptRow::content).containsExactly("one", "two", null, "noon");
        assertThat(cached).isEqualTo(transcripts().load("s1"));
    }

    @Test
    void load_listReturnedEarlier_doesNotChangeWithLaterAppends() {
        create("s1");
        transcripts().append("s1", TranscriptRow.user("one", clock.instant()));
        List<TranscriptRow> first = transcripts().load("s1");

        transcripts().append("s1", TranscriptRow.assistant("two", clock.instant()));

        assertThat(first).extracting(TranscriptRow::content).containsExactly("one");
        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two");
        assertThatThrownBy(() -> first.add(TranscriptRow.user("x", clock.instant()))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void load_afterATurnStartAppendedTheUserRow_includesIt() {
        SessionSource source = dm("7");
        var entry = sessions().getOrCreate(keyOf(source), source);
        transcripts().append(entry.sessionId(), TranscriptRow.user("earlier", clock.instant()));
        assertThat(transcripts().load(entry.sessionId())).hasSize(1);
        var turn = turns().receive(keyOf(source), dev.herald.core.platform.MessageEvent.text(source, "now", "m-1", clock.instant()))
                .orElseThrow();

        turns().start(turn.id(), entry.sessionId(), TranscriptRow.user("now", clock.instant())).orElseThrow();

        List<TranscriptRow> loaded = transcripts().load(entry.sessionId());
        assertThat(loaded).extracting(TranscriptRow::content).containsExactly("earlier", "now");
        reopen();
        assertThat(transcripts().load(entry.sessionId())).isEqualTo(loaded);
    }

    @Test
    void load_afterTheSessionContinuedInAChild_readsEachSessionsOwnRows() {
        create("p");
        transcripts().append("p", TranscriptRow.user("old", clock.instant()));
        assertThat(transcripts().load("p")).hasSize(1);

        transcripts().continueInChild("p", "c", clock.instant());
        transcripts().append("c", TranscriptRow.user("summary", clock.instant()));

        assertThat(transcripts().load("p")).extracting(TranscriptRow::content).containsExactly("old");
        assertThat(transcripts().load("c")).extracting(TranscriptRow::content).containsExactly("summary");
    }

    @Test
    void appendSoon_thenLoadOnTheSameThread_includesTheRow_andItIsOnDisk() {
        create("s1");
        transcripts().append("s1", TranscriptRow.user("one", clock.instant()));
        assertThat(transcripts().load("s1")).hasSize(1);

        transcripts().appendSoon("s1", TranscriptRow.assistant("two", clock.instant()));

        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two");
        assertThat(transcripts().append("s1", TranscriptRow.user("three", clock.instant())).seq()).isEqualTo(3);
        reopen();
        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two", "three");
    }

    @Test
    void appendSoon_toAnUnknownSession_failsTheCallersNextWrite() {
        create("s1");

        try {
            transcripts().appendSoon("nope", TranscriptRow.assistant("lost", clock.instant()));
        } catch (StoreException e) {
            return; // a store without a writer thread appends at once, and fails there
        }
        assertThatThrownBy(() -> transcripts().append("s1", TranscriptRow.user("relies on it", clock.instant())))
                .isInstanceOf(StoreException.class);
        assertThat(transcripts().append("s1", TranscriptRow.user("later", clock.instant())).seq()).isEqualTo(1);
    }
}
