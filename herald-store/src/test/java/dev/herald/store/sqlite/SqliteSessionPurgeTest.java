package dev.herald.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.store.contract.SessionPurgeContract;
import dev.herald.store.ops.Conversations;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SqliteSessionPurgeTest extends SessionPurgeContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }

    @Override
    protected Connection rawConnection() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + RawSql.file(dir));
    }

    @Test
    void export_afterPurge_holdsOnlyTheOtherConversation() throws Exception {
        SessionEntry purged = lane("1");
        SessionEntry kept = lane("2");
        transcripts().append(purged.sessionId(), TranscriptRow.user("secret plans", clock.instant()));
        transcripts().append(kept.sessionId(), TranscriptRow.user("shopping list", clock.instant()));

        assertThat(sessions().purge(purged.key())).isInstanceOf(PurgeResult.Purged.class);

        List<String> exported = new ArrayList<>();
        try (Conversations reader = Conversations.sqlite(RawSql.file(dir))) {
            reader.forEach(null, (session, rows) -> rows.forEach(r -> exported.add(session.sessionKey() + ": " + r.content())));
            assertThat(reader.forEach(purged.key().value(), (session, rows) -> exported.add("purged lane visited"))).isZero();
        }
        assertThat(exported).containsExactly(kept.key().value() + ": shopping list");
    }
}
