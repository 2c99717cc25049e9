package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A deferred append (a final answer) commits in the transaction of its caller's next write (the turn's reply record), so
 * the two are on disk together or not at all; with no such write it commits on its own shortly after.
 */
class PostgresDeferredWritesTest {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    PostgresStorage storage;

    private String session() {
        storage = PostgresStorage.open(db.options(), Clock.systemUTC());
        SessionSource source = new SessionSource(Platform.of("loopback"), "c1", ChatType.DM, "u1", null, null, null);
        SessionEntry entry = storage.sessions().getOrCreate(SessionKey.of(source), source);
        return entry.sessionId();
    }

    private long rows(String content) {
        return Long.parseLong(db.text("SELECT COUNT(*) FROM messages WHERE content = ?", content));
    }

    @AfterEach
    void close() {
        if (storage != null) {
            storage.close();
        }
    }

    @Test
    void appendSoon_isCommittedByTheCallersNextWrite() {
        String s = session();
        storage.transcripts().appendSoon(s, TranscriptRow.assistant("the answer", Instant.now()));
        storage.transcripts().append(s, TranscriptRow.user("next", Instant.now()));

        assertThat(rows("the answer")).isEqualTo(1);
        assertThat(storage.transcripts().load(s)).extracting(TranscriptRow::content).containsExactly("the answer", "next");
    }

    @Test
    void appendSoon_whoseNextWriteFails_isRolledBackWithIt_andNotCommittedLater() throws Exception {
        String s = session();
        storage.transcripts().appendSoon(s, TranscriptRow.assistant("never alone", Instant.now()));

        assertThatThrownBy(() -> storage.pool().write("the reply record", c -> {
            throw new IllegalStateException("the write after it fails");
        })).hasMessageContaining("the write after it fails");
        Thread.sleep(300);

        assertThat(rows("never alone")).isZero();
    }

    @Test
    void appendSoon_thenARead_readsItsOwnWrite() {
        String s = session();
        storage.transcripts().appendSoon(s, TranscriptRow.assistant("mine", Instant.now()));

        assertThat(storage.transcripts().load(s)).extracting(TranscriptRow::content).containsExactly("mine");
    }

    @Test
    void appendSoon_withoutAWriteAfterIt_isCommittedOnItsOwnSoon() throws Exception {
        String s = session();
        storage.transcripts().appendSoon(s, TranscriptRow.assistant("on its own", Instant.now()));

        long deadline = System.nanoTime() + 5_000_000_000L;
        while (rows("on its own") == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(rows("on its own")).isEqualTo(1);
    }
}
