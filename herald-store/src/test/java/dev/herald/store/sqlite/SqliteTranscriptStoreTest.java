package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.TranscriptStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import static org.assertj.core.api.Assertions.assertThat;
import dev.herald.core.transcript.TranscriptRow;
import org.junit.jupiter.api.Test;

class SqliteTranscriptStoreTest extends TranscriptStoreContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }

    @Test
    void load_afterRowsWrittenBehindTheStore_readsThemAsAFreshStoreWould() {
        transcripts().createSession("s1", "agent:main:loopback:dm:1", null, clock.instant());
        transcripts().append("s1", TranscriptRow.user("one", clock.instant()));
        assertThat(transcripts().load("s1")).hasSize(1);

        RawSql.update(dir, "INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('s1', 2, 'assistant', 'two', 0)");
        RawSql.update(dir, "INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('s1', 3, 'user', 'three', 0)");

        var loaded = transcripts().load("s1");
        assertThat(loaded).extracting(TranscriptRow::content).containsExactly("one", "two", "three");
        assertThat(transcripts().append("s1", TranscriptRow.assistant("four", clock.instant())).seq()).isEqualTo(4);
        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two", "three", "four");
        reopen();
        assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two", "three", "four");
    }
}
