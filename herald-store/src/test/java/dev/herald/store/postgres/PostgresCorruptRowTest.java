package dev.herald.store.postgres;

import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.store.contract.CorruptRowContract;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresCorruptRowTest extends CorruptRowContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }

    @Override
    protected void breakSessionOrigin(SessionKey key) {
        db.update("UPDATE sessions SET origin = '{\"platform\": \"loopback\", \"chat_id\": ' WHERE session_key = ?", key.value());
    }

    @Override
    protected String rawSessionOrigin(SessionKey key) {
        return db.text("SELECT origin FROM sessions WHERE session_key = ?", key.value());
    }

    @Override
    protected void breakTranscriptRole(String sessionId, long seq) {
        db.update("UPDATE messages SET role = 'narrator' WHERE session_id = ? AND seq = ?", sessionId, seq);
    }

    @Override
    protected void breakTurnState(long turnId) {
        db.update("UPDATE turns SET state = 'PONDERING' WHERE id = ?", turnId);
    }

    @Override
    protected void breakTurnSource(long turnId) {
        db.update("UPDATE turns SET source = '{\"platform\": \"Not A Platform\", \"chat_id\": \"1\", \"chat_type\": \"dm\"}' WHERE id = ?", turnId);
    }

    @Override
    protected void breakTranscriptAttachments(String sessionId, long seq) {
        db.update("UPDATE messages SET attachments = '{\"kind\": \"document\"}' WHERE session_id = ? AND seq = ?", sessionId, seq);
    }

    @Override
    protected void breakTurnAttachments(long turnId) {
        db.update("UPDATE turns SET attachments = '[{\"kind\": ' WHERE id = ?", turnId);
    }
}
