package dev.herald.store.postgres;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.SessionPurgeContract;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresSessionPurgeTest extends SessionPurgeContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }

    @Override
    protected Connection rawConnection() throws SQLException {
        return db.connect();
    }
}
