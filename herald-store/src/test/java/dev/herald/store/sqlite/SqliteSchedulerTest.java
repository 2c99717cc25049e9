package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.SchedulerContract;
import java.nio.file.Path;
import java.time.Clock;

/** The schedule store and the scheduler on SQLite (the store's own contract is part of it). */
class SqliteSchedulerTest extends SchedulerContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }
}
