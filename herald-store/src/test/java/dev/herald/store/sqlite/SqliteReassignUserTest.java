package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.ReassignUserContract;
import java.nio.file.Path;
import java.time.Clock;

class SqliteReassignUserTest extends ReassignUserContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }
}
