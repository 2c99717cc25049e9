package dev.herald.store.postgres;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.ReassignUserContract;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresReassignUserTest extends ReassignUserContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }
}
