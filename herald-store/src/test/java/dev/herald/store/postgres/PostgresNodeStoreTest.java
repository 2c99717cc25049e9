package dev.herald.store.postgres;

import dev.herald.core.session.Storage;
import dev.herald.store.contract.NodeStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two PostgreSQL stores on one database are two nodes; leases run by the server's now(), so time passes for real. */
class PostgresNodeStoreTest extends NodeStoreContract {
    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    @Override
    protected Storage open(Path dir, Clock clock) {
        return PostgresStorage.open(db.options(), clock);
    }

    @Override
    protected void letTimePass(Duration d) {
        super.letTimePass(d);
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
