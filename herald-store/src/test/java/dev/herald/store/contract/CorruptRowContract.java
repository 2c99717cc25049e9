package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.continuity.Freshness;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.CapturedLogs;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Rows holding data the store cannot read: single-key calls fail naming the row, listings skip it,
 * nothing else is lost and the bad row is left as it is. Implementations break rows with raw SQL.
 */
public abstract class CorruptRowContract extends StorageContract {

    /** Overwrites the lane's stored origin with text that is not a valid source (while the store is open). */
    protected abstract void breakSessionOrigin(SessionKey key);

    /** The lane's stored origin as raw text. */
    protected abstract String rawSessionOrigin(SessionKey key);

    /** Overwrites the role of one transcript row with an unknown role. */
    protected abstract void breakTranscriptRole(String sessionId, long seq);

    /** Overwrites the state of a turn with an unknown state. */
    protected abstract void breakTurnState(long turnId);

    /** Overwrites the stored source of a turn with text that is not a valid source. */
    protected abstract void breakTurnSource(long turnId);

    /** Overwrites the attachments of one transcript row with text that is not a list of attachments. */
    protected abstract void breakTranscriptAttachments(String sessionId, long seq);

    /** Overwrites the attachments of a turn with text that is not JSON. */
    protected abstract void breakTurnAttachments(long turnId);

    @Test
    void load_unreadableAttachments_keepsTheRowsTextAndTheOtherRows_andLogsNamingTheRow() {
        SessionEntry lane = lane("1");
        MessageEvent.MediaRef doc = new MessageEvent.MediaRef("document", "BQAD-1", "application/pdf", "report.pdf", 2048);
        transcripts().append(lane.sessionId(), TranscriptRow.user("read this", List.of(doc), clock.instant()));
        transcripts().append(lane.sessionId(), TranscriptRow.assistant("done", clock.instant()));
        breakTranscriptAttachments(lane.sessionId(), 1);

        List<TranscriptRow> rows;
        try (CapturedLogs logs = new CapturedLogs()) {
            rows = transcripts().load(lane.sessionId());
            assertThat(logs.texts()).anySatisfy(t -> assertThat(t)
                    .contains("transcript " + lane.sessionId() + " seq 1").contains("attachments").contains("cannot be read"));
        }
        assertThat(rows).extracting(TranscriptRow::content).containsExactly("read this", "done");
        assertThat(rows.getFirst().attachments()).isEmpty();
    }

    @Test
    void find_turnWithUnreadableAttachments_keepsItsTextAndLogsNamingIt() {
        TurnRecord turn = turns().receive(keyOf(dm("1")), new MessageEvent("ev-1", dm("1"), "see file", "m-1", null,
                List.of(new MessageEvent.MediaRef("document", "BQAD-1", null)), MessageEvent.Origin.USER, clock.instant())).orElseThrow();
        breakTurnAttachments(turn.id());

        try (CapturedLogs logs = new CapturedLogs()) {
            TurnRecord read = turns().find(turn.id()).orElseThrow();
            assertThat(read.text()).isEqualTo("see file");
            assertThat(read.attachments()).isEmpty();
            assertThat(logs.texts()).anySatisfy(t -> assertThat(t).contains("turn " + turn.id()).contains("attachments"));
        }
    }

    @Test
    void find_unreadableLane_failsNamingTheKey() {
        SessionEntry lane = lane("1");
        breakSessionOrigin(lane.key());

        assertThatThrownBy(() -> sessions().find(lane.key()))
                .isInstanceOf(StoreException.class).hasMessageContaining(lane.key().value()).hasMessageContaining("origin");
    }

    @Test
    void getOrCreate_unreadableLane_failsAndLeavesTheRowUntouched() {
        SessionEntry lane = lane("1");
        breakSessionOrigin(lane.key());
        String broken = rawSessionOrigin(lane.key());

        assertThatThrownBy(() -> sessions().getOrCreate(lane.key(), dm("1")))
                .isInstanceOf(StoreException.class).hasMessageContaining(lane.key().value());

        assertThat(rawSessionOrigin(lane.key())).isEqualTo(broken);
    }

    @Test
    void listResumePending_unreadableLane_isSkippedAndOthersAreListed() {
        SessionEntry broken = lane("broken");
        SessionEntry fine = lane("fine");
        sessions().markResumePending(broken.key(), ResumeReason.RESTART_TIMEOUT);
        sessions().markResumePending(fine.key(), ResumeReason.RESTART_TIMEOUT);
        breakSessionOrigin(broken.key());

        assertThat(sessions().listResumePending(Optional.empty())).extracting(SessionEntry::key).containsExactly(fine.key());
        assertThat(sessions().find(fine.key())).isPresent();
        assertThat(sessions().count()).isEqualTo(2);
    }

    @Test
    void load_unreadableRow_failsNamingTheSessionAndRow() {
        SessionEntry lane = lane("1");
        transcripts().append(lane.sessionId(), TranscriptRow.user("a", clock.instant()));
        transcripts().append(lane.sessionId(), TranscriptRow.assistant("b", clock.instant()));
        breakTranscriptRole(lane.sessionId(), 2);

        assertThatThrownBy(() -> transcripts().load(lane.sessionId()))
                .isInstanceOf(StoreException.class).hasMessageContaining(lane.sessionId()).hasMessageContaining("role");
        assertThat(transcripts().append(lane.sessionId(), TranscriptRow.user("c", clock.instant())).seq()).isEqualTo(3);
    }

    @Test
    void inState_unreadableTurn_isSkippedAndFindNamesIt() {
        TurnRecord broken = turns().receive(keyOf(dm("1")), MessageEvent.text(dm("1"), "a", null, clock.instant())).orElseThrow();
        TurnRecord fine = turns().receive(keyOf(dm("2")), MessageEvent.text(dm("2"), "b", null, clock.instant())).orElseThrow();
        breakTurnSource(broken.id());

        assertThat(turns().inState(TurnState.RECEIVED, 10)).extracting(TurnRecord::id).containsExactly(fine.id());
        assertThatThrownBy(() -> turns().find(broken.id())).isInstanceOf(StoreException.class).hasMessageContaining("turn " + broken.id());
    }

    @Test
    void find_turnWithUnknownState_failsNamingIt() {
        TurnRecord turn = turns().receive(keyOf(dm("1")), MessageEvent.text(dm("1"), "a", null, clock.instant())).orElseThrow();
        breakTurnState(turn.id());

        assertThatThrownBy(() -> turns().find(turn.id())).isInstanceOf(StoreException.class).hasMessageContaining("state");
    }

    @Test
    void recoverInterrupted_runningTurnWithUnreadableSource_stillRecoversTheLane() {
        SessionEntry lane = lane("1");
        TurnRecord turn = turns().receive(lane.key(), MessageEvent.text(dm("1"), "a", null, clock.instant())).orElseThrow();
        turns().start(turn.id(), lane.sessionId(), null);
        breakTurnSource(turn.id());
        breakSessionOrigin(lane.key());

        assertThat(recoverInterrupted(Freshness.defaults())).containsExactly(lane.key());
    }
}
