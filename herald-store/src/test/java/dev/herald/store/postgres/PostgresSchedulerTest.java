package dev.herald.store.postgres;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.SchedulerContract;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The schedule store and the scheduler on PostgreSQL: two stores on one database are two gateways' schedulers. */
class PostgresSchedulerTest extends SchedulerContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }
}
