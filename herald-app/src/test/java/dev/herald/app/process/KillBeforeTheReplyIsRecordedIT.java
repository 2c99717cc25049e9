package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill -9 after the model answered and before the answer is recorded as the turn's reply, on PostgreSQL: the answer
 * and the reply record commit together or not at all, so after the restart the resumed turn answers once and the
 * transcript holds one answer, not the lost one and a second.
 */
class KillBeforeTheReplyIsRecordedIT {
    static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;
    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        herald = HeraldProcess.configureNode(dir.resolve("home"), model.baseUrl().toString(), "drain_timeout_seconds: 1", db.url(),
                "node-a", 3);
    }

    @AfterEach
    void tearDown() {
        herald.close();
        model.close();
    }

    @Test
    void killAfterTheAnswerBeforeItsRecord_theSessionEndsWithOneAnswer_notTwo() throws Exception {
        model.enqueue(Reply.text("the first answer, lost with the process"), Reply.text("the answer after the restart"));
        herald.start(false, HeraldProcess.env("HERALD_CRASH_AT", "turn.before-record")).awaitReady();

        herald.chat("ledger", "compute it");
        assertThat(herald.awaitExit(WAIT)).as("halted at the crash point, as kill -9 would").isEqualTo(137);
        herald.start(false, Map.of()).awaitReady();
        awaitText("SELECT COUNT(*) FROM turns WHERE state IN ('RECEIVED', 'RUNNING', 'AWAITING_DELIVERY')", "0");
        awaitText("SELECT COUNT(*) FROM turns WHERE origin = 'RESUME' AND state = 'DELIVERED'", "1");

        assertThat(db.text("SELECT COUNT(*) FROM messages WHERE role = 'assistant'")).as("answers in the transcript").isEqualTo("1");
        assertThat(db.text("SELECT content FROM messages WHERE role = 'assistant'")).isEqualTo("the answer after the restart");
        assertThat(model.requests()).hasSize(2);
    }

    private void awaitText(String sql, String expected) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (expected.equals(db.text(sql))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(sql + " never gave " + expected + "; it gives " + db.text(sql) + "\n" + herald.output());
    }
}
