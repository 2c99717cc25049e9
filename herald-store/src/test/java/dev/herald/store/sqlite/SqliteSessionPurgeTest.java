package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.SessionPurgeContract;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;

class SqliteSessionPurgeTest extends SessionPurgeContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }

    @Override
    protected Connection rawConnection() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + RawSql.file(dir));
    }
}
