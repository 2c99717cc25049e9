package dev.herald.store.sqlite;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.IdentityLinksContract;
import java.nio.file.Path;
import java.time.Clock;

class SqliteIdentityLinksTest extends IdentityLinksContract {
    @Override
    protected Storage open(Path dir, Clock clock) {
        return RawSql.open(dir, clock);
    }
}
