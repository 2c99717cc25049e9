package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.TranscriptStoreContract;
import java.nio.file.Path;
import java.time.Clock;

class SqliteTranscriptStoreTest extends TranscriptStoreContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }
}
