package dev.herald.store.sqlite;

import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.store.contract.CorruptRowContract;
import java.nio.file.Path;
import java.time.Clock;

class SqliteCorruptRowTest extends CorruptRowContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }

    @Override
    protected void breakSessionOrigin(SessionKey key) {
        RawSql.update(dir, "UPDATE sessions SET origin = '{\"platform\": \"loopback\", \"chat_id\": ' WHERE session_key = ?", key.value());
    }

    @Override
    protected String rawSessionOrigin(SessionKey key) {
        return RawSql.text(dir, "SELECT origin FROM sessions WHERE session_key = ?", key.value());
    }

    @Override
    protected void breakTranscriptRole(String sessionId, long seq) {
        RawSql.update(dir, "UPDATE messages SET role = 'narrator' WHERE session_id = ? AND seq = ?", sessionId, seq);
    }

    @Override
    protected void breakTurnState(long turnId) {
        RawSql.update(dir, "UPDATE turns SET state = 'PONDERING' WHERE id = ?", turnId);
    }

    @Override
    protected void breakTurnSource(long turnId) {
        RawSql.update(dir, "UPDATE turns SET source = '{\"platform\": \"Not A Platform\", \"chat_id\": \"1\", \"chat_type\": \"dm\"}' WHERE id = ?", turnId);
    }

    @Override
    protected void breakTranscriptAttachments(String sessionId, long seq) {
        RawSql.update(dir, "UPDATE messages SET attachments = '{\"kind\": \"document\"}' WHERE session_id = ? AND seq = ?", sessionId, seq);
    }

    @Override
    protected void breakTurnAttachments(long turnId) {
        RawSql.update(dir, "UPDATE turns SET attachments = '[{\"kind\": ' WHERE id = ?", turnId);
    }
}
