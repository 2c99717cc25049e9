package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.contract.NodeStoreContract;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

    /**
     * Node b takes the lease of a session from its idle holder a at the moment a starts a turn of it (b holds a request
     * for the session; two messages of one conversation reached two nodes at once). b's take waits for a's START and then
     * sees that a runs a turn: it must not take the lease, or b's own turn could never start and would be left waiting.
     * The START is held between its take of the lease and its move of the turn by a lock on the turn's row, so the race
     * happens every time.
     */
    @Test
    void takeLease_fromAHolderWhoseStartCommitsMeanwhile_waitsForItAndLeavesTheLeaseWithTheHolder() throws Exception {
        storage.nodes().register(node("a"), Duration.ofMinutes(1), null);
        other.nodes().register(node("b"), Duration.ofMinutes(1), null);
        TurnRecord first = waiting(storage, "a", "1", "first");
        start(storage, "a", first).orElseThrow();
        turnsOf(storage, "a").complete(first.id(), "final"); // a holds the lease and is idle
        TurnRecord second = waiting(storage, "a", "1", "second");

        try (Connection lock = db.connect()) {
            lock.setAutoCommit(false);
            try (PreparedStatement ps = lock.prepareStatement("SELECT 1 FROM turns WHERE id = ? FOR UPDATE")) {
                ps.setLong(1, second.id());
                ps.executeQuery().close();
            }
            CompletableFuture<Optional<TurnRecord>> starting = CompletableFuture.supplyAsync(() -> start(storage, "a", second));
            awaitLockWaits(1); // a's START holds the session's row and waits for the turn's
            CompletableFuture<Boolean> taking = CompletableFuture.supplyAsync(() -> other.sessions().takeLease(second.sessionKey(), "b", true));
            awaitLockWaits(2); // b's take waits for the session's row
            lock.commit();

            assertThat(starting.get(10, TimeUnit.SECONDS)).as("a's start").isPresent();
            assertThat(taking.get(10, TimeUnit.SECONDS)).as("b's take, after a started a turn of the session").isFalse();
        }
        assertThat(other.sessions().leaseHolder(second.sessionKey())).contains("a");
        assertThat(other.turns().find(second.id()).orElseThrow().state()).isEqualTo(TurnState.RUNNING);
    }

    /** Waits until {@code n} statements of this database wait for a row lock. */
    private void awaitLockWaits(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String waiting = db.text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
            if (Integer.parseInt(waiting) >= n) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(n + " statement(s) waiting for a lock expected within 10 s");
    }
}
