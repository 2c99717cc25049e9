package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.UserErrors;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.StoppablePostgres;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL server stopped for some seconds under a running gateway, then started again on the same port and
 * data: the turns running at the stop waited and were answered once it was back, the messages sent meanwhile were not
 * taken (left to the platform, which delivers them again) and were answered once then, the gateway was not ready while
 * the database was gone, no turn FAILED for it, and no chat saw an internal log line. Before, two of five running turns
 * ended with "agent - the turn failed unexpectedly (StoreException)" in the chat.
 */
class DatabaseOutageTest extends GatewaySpec {
    static final int RUNNING = 5;
    StoppablePostgres pg;

    @BeforeEach
    void onAPostgresOfItsOwn() {
        pg = StoppablePostgres.start(dir.resolve("pg"));
        h = new Harness(dir, (home, clock) -> PostgresStorage.open(pg.options().withOutageWait(Duration.ofSeconds(60)), clock))
                .platform("telegram", true);
        for (int i = 1; i <= RUNNING + 3; i++) {
            h.allowedUsers.add("u" + i);
        }
    }

    @AfterEach
    void stopServer() {
        if (h != null) {
            h.close(); // before the server goes: the invariants are read from it
            h = null;
        }
        pg.close();
    }

    private static SessionSource user(int i) {
        return Harness.dm("telegram", "chat-" + i, "u" + i);
    }

    @Test
    void databaseStoppedForSeconds_runningTurnsWaitAndAreAnswered_messagesMeanwhileAreRedeliveredAndAnswered_noneFailed() {
        h.start();
        LoopbackPlatform telegram = h.loopback("telegram");
        List<ScriptedAgent.Hold> holds = new ArrayList<>();
        for (int i = 1; i <= RUNNING; i++) {
            holds.add(h.agent.hold("answer " + i));
        }
        for (int i = 1; i <= RUNNING; i++) {
            assertThat(telegram.say(user(i), "question " + i, "q-" + i)).isEqualTo(Admission.ACCEPTED);
        }
        holds.forEach(hold -> hold.awaitArrival(Harness.WAIT));

        pg.stop();
        holds.forEach(ScriptedAgent.Hold::release); // their answers cannot be written now: the turns wait
        await().atMost(Harness.WAIT).until(() -> !h.gateway.status().ready());
        assertThat(h.gateway.status().store().reason()).isEqualTo("the database cannot be reached");
        Map<String, Admission> meanwhile = new LinkedHashMap<>();
        for (int i = RUNNING + 1; i <= RUNNING + 3; i++) {
            meanwhile.put("q-" + i, telegram.say(user(i), "question " + i, "q-" + i));
        }
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .until(() -> telegram.sent().isEmpty() && !h.gateway.status().ready()); // an outage of some seconds
        pg.start();

        for (int i = 1; i <= RUNNING; i++) {
            telegram.awaitSent(("answer " + i)::equals, Duration.ofSeconds(60));
        }
        await().atMost(Harness.WAIT).until(() -> h.gateway.status().ready());
        for (int i = RUNNING + 1; i <= RUNNING + 3; i++) { // Telegram hands over again what was not taken
            if (meanwhile.get("q-" + i) != Admission.ACCEPTED) {
                assertThat(telegram.say(user(i), "question " + i, "q-" + i)).isEqualTo(Admission.ACCEPTED);
            }
            telegram.awaitSent(("echo: question " + i)::equals, Harness.WAIT);
        }

        assertThat(meanwhile.values()).as("not taken while the database was gone").containsOnly(Admission.REJECTED_UNAVAILABLE);
        for (int i = 1; i <= RUNNING; i++) {
            assertThat(telegram.sentMatching(("answer " + i)::equals)).as("answer %d once", i).hasSize(1);
        }
        for (int i = RUNNING + 1; i <= RUNNING + 3; i++) {
            assertThat(telegram.sentMatching(("echo: question " + i)::equals)).as("question %d answered once", i).hasSize(1);
        }
        assertThat(h.storage.turns().inState(TurnState.FAILED, 100)).as("no turn failed for the outage").isEmpty();
        assertThat(telegram.sent()).hasSize(RUNNING + 3)
                .allSatisfy(s -> assertThat(UserErrors.unfit(s.text())).as(s.text()).isEmpty());
    }
}
