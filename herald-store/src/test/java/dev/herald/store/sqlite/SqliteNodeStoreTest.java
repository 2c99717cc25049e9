package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.NodeStoreContract;
import java.nio.file.Path;
import java.time.Clock;

/** Two SQLite stores on one file are two nodes on one host: the store's clock is the database's. */
class SqliteNodeStoreTest extends NodeStoreContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }
}
