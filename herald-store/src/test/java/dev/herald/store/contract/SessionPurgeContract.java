package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.turn.TurnRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link dev.herald.core.session.SessionStore#purge}, for every store implementation. Besides the store's own reads,
 * the tests look at every row of the tables a lane lives in through a plain connection, so that "gone" and
 * "untouched" are about the database, not about what the store chooses to return.
 */
public abstract class SessionPurgeContract extends StorageContract {
    private static final List<String> TABLES = List.of("sessions", "transcript_sessions", "messages", "turns", "session_models", "chat_preferences");

    /** A plain connection to the database under test, beside the store. */
    protected abstract Connection rawConnection() throws SQLException;

    @Test
    void purge_laneWithResetsCompressionsTurnsAndModel_removesEveryRowOfItAndLeavesAnotherLaneIntact() {
        SessionEntry purged = conversation("1");
        conversation("2");
        Map<String, List<String>> before = database();
        List<String> purgedIds = transcriptIds(purged.key());
        assertThat(purgedIds).hasSize(3);

        PurgeResult result = sessions().purge(purged.key());

        assertThat(result).isEqualTo(new PurgeResult.Purged(3, 7, 3));
        reopen();
        assertThat(sessions().find(purged.key())).isEmpty();
        assertThat(storage.modelChoices().chosen(purged.key())).isEmpty();
        assertThat(storage.chatPreferences().get(purged.key(), "voice")).isEmpty();
        assertThat(sessions().search(SessionQuery.all(50))).extracting(SessionEntry::key).containsExactly(keyOf(dm("2")));
        for (String id : purgedIds) {
            assertThat(transcripts().session(id)).isEmpty();
            assertThat(transcripts().load(id)).isEmpty();
        }
        Map<String, List<String>> after = database();
        for (String table : TABLES) {
            List<String> kept = before.get(table).stream().filter(row -> !ofLane(row, purged.key(), purgedIds)).toList();
            assertThat(after.get(table)).as(table).isEqualTo(kept);
            assertThat(after.get(table)).as(table).noneMatch(row -> ofLane(row, purged.key(), purgedIds));
        }
    }

    @Test
    void purge_transcriptsReadBefore_loadEmptyWithoutReopening() {
        SessionEntry purged = conversation("1");
        List<String> purgedIds = transcriptIds(purged.key());
        for (String id : purgedIds) {
            transcripts().load(id); // read (and kept) before the purge
        }
        assertThat(purgedIds).anyMatch(id -> !transcripts().load(id).isEmpty());

        assertThat(sessions().purge(purged.key())).isInstanceOf(PurgeResult.Purged.class);

        for (String id : purgedIds) {
            assertThat(transcripts().load(id)).as(id).isEmpty();
        }
    }

    @Test
    void purge_twice_isNoSuchSession() {
        SessionEntry lane = conversation("1");
        assertThat(sessions().purge(lane.key())).isInstanceOf(PurgeResult.Purged.class);

        assertThat(sessions().purge(lane.key())).isEqualTo(new PurgeResult.NoSuchSession());
        assertThat(sessions().purge(keyOf(dm("never")))).isEqualTo(new PurgeResult.NoSuchSession());
    }

    @Test
    void purge_laneWithRunningTurn_isRefusedAndKeepsEverything() {
        SessionEntry lane = conversation("1");
        TurnRecord turn = received("1", "still working");
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("still working", clock.instant())).orElseThrow();
        Map<String, List<String>> before = database();

        PurgeResult result = sessions().purge(lane.key());

        assertThat(result).isInstanceOf(PurgeResult.Refused.class);
        assertThat(((PurgeResult.Refused) result).reason()).contains("1 turn(s) not finished", "turn " + turn.id() + " RUNNING");
        assertThat(database()).isEqualTo(before);
    }

    @Test
    void purge_laneWithWaitingTurn_isRefusedAndKeepsEverything() {
        SessionEntry lane = conversation("1");
        TurnRecord waiting = received("1", "queued");
        Map<String, List<String>> before = database();

        PurgeResult result = sessions().purge(lane.key());

        assertThat(((PurgeResult.Refused) result).reason()).contains("turn " + waiting.id() + " RECEIVED");
        assertThat(database()).isEqualTo(before);
    }

    @Test
    void purge_laneWithReplyAwaitingDelivery_isRefusedAndKeepsEverything() {
        SessionEntry lane = conversation("1");
        TurnRecord turn = received("1", "answer me");
        turns().start(turn.id(), lane.sessionId(), TranscriptRow.user("answer me", clock.instant())).orElseThrow();
        turns().recordReply(turn.id(), "reply", "the answer");
        Map<String, List<String>> before = database();

        PurgeResult result = sessions().purge(lane.key());

        assertThat(((PurgeResult.Refused) result).reason()).contains("turn " + turn.id() + " AWAITING_DELIVERY");
        assertThat(database()).isEqualTo(before);
    }

    @Test
    void purge_resumePendingLane_isRefusedUntilTheMarkIsCleared() {
        SessionEntry lane = conversation("1");
        sessions().markResumePending(lane.key(), ResumeReason.RESTART_TIMEOUT);
        Map<String, List<String>> before = database();

        PurgeResult result = sessions().purge(lane.key());

        assertThat(((PurgeResult.Refused) result).reason()).contains("resume-pending", "clear its resume mark");
        assertThat(database()).isEqualTo(before);
        sessions().clearResumePending(lane.key());
        assertThat(sessions().purge(lane.key())).isInstanceOf(PurgeResult.Purged.class);
    }

    @Test
    void purge_anotherLanesTranscriptContinuingOne_keepsItsRowsAndLosesOnlyTheParentLink() {
        SessionEntry purged = conversation("1");
        SessionEntry other = conversation("2");
        String child = "child-of-" + purged.sessionId();
        transcripts().createSession(child, other.key().value(), purged.sessionId(), clock.instant());
        transcripts().append(child, TranscriptRow.user("kept", clock.instant()));

        assertThat(sessions().purge(purged.key())).isInstanceOf(PurgeResult.Purged.class);

        assertThat(transcripts().session(child).orElseThrow().parentSessionId()).isNull();
        assertThat(transcripts().load(child)).extracting(TranscriptRow::content).containsExactly("kept");
        assertThat(sessions().find(other.key())).isPresent();
    }

    // ---- a conversation with everything a lane can hold ---------------------------------------------

    /**
     * A lane with three transcripts (the first compressed into a child, then a reset), seven transcript rows, three
     * finished turns and a model choice.
     */
    private SessionEntry conversation(String chatId) {
        SessionEntry lane = lane(chatId);
        finishedTurn(chatId, lane.sessionId(), "hello " + chatId);
        transcripts().append(lane.sessionId(), TranscriptRow.assistant("hi " + chatId, clock.instant()));
        clock.advance(Duration.ofSeconds(1));
        String child = "compressed-" + lane.sessionId();
        transcripts().continueInChild(lane.sessionId(), child, clock.instant());
        finishedTurn(chatId, sessions().getOrCreate(lane.key(), dm(chatId)).sessionId(), "more " + chatId);
        transcripts().append(child, TranscriptRow.assistant("sure " + chatId, clock.instant()));
        clock.advance(Duration.ofSeconds(1));
        SessionEntry reset = sessions().reset(lane.key(), dm(chatId));
        finishedTurn(chatId, reset.sessionId(), "again " + chatId);
        transcripts().append(reset.sessionId(), TranscriptRow.assistant("yes " + chatId, clock.instant()));
        transcripts().append(reset.sessionId(), TranscriptRow.assistant("and more " + chatId, clock.instant()));
        storage.modelChoices().choose(lane.key(), "profile-" + chatId);
        storage.chatPreferences().set(lane.key(), "voice", "tts-" + chatId);
        clock.advance(Duration.ofSeconds(1));
        return sessions().find(lane.key()).orElseThrow();
    }

    private TurnRecord received(String chatId, String text) {
        SessionSource source = dm(chatId);
        return turns().receive(keyOf(source), MessageEvent.text(source, text, null, clock.instant())).orElseThrow();
    }

    private void finishedTurn(String chatId, String sessionId, String text) {
        TurnRecord turn = received(chatId, text);
        turns().start(turn.id(), sessionId, TranscriptRow.user(text, clock.instant())).orElseThrow();
        turns().recordReply(turn.id(), "reply", "reply to " + text);
        turns().delivered(turn.id(), "sent-" + turn.id());
    }

    private List<String> transcriptIds(SessionKey key) {
        return database().get("transcript_sessions").stream().filter(row -> row.contains("|" + key.value() + "|"))
                .map(row -> row.substring(1, row.indexOf('|', 1))).toList();
    }

    /** Whether a row (as {@link #database} writes it) belongs to the lane: names its key or one of its transcripts. */
    private static boolean ofLane(String row, SessionKey key, List<String> transcriptIds) {
        return row.contains("|" + key.value() + "|") || transcriptIds.stream().anyMatch(id -> row.startsWith("|" + id + "|"));
    }

    /** Every row of the lane tables, each as "|col1|col2|...|" in the table's column order, sorted per table. */
    private Map<String, List<String>> database() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Connection c = rawConnection(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder("|");
                        for (int i = 1; i <= columns; i++) {
                            row.append(rs.getString(i)).append('|');
                        }
                        rows.add(row.toString());
                    }
                }
                rows.sort(null);
                out.put(table, rows);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
