package dev.herald.store.postgres;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.TranscriptStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import static org.assertj.core.api.Assertions.assertThat;
import dev.herald.core.transcript.TranscriptRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresTranscriptStoreTest extends TranscriptStoreContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }

    @Test
    void load_afterAnotherNodeAppendedAndPurged_readsWhatTheDatabaseHolds() {
        transcripts().createSession("s1", "agent:main:loopback:dm:1", null, clock.instant());
        transcripts().append("s1", TranscriptRow.user("one", clock.instant()));
        assertThat(transcripts().load("s1")).hasSize(1);

        try (PostgresStorage other = PostgresStorage.open(db.options(), clock)) {
            assertThat(other.transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one");
            other.transcripts().append("s1", TranscriptRow.assistant("two", clock.instant()));

            assertThat(transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two");
            transcripts().append("s1", TranscriptRow.user("three", clock.instant()));
            assertThat(other.transcripts().load("s1")).extracting(TranscriptRow::content).containsExactly("one", "two", "three");

            db.update("DELETE FROM messages WHERE session_id = 's1'");
            assertThat(transcripts().load("s1")).isEmpty();
            assertThat(other.transcripts().load("s1")).isEmpty();
        }
    }
}
