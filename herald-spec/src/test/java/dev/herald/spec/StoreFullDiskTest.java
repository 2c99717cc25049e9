package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.UserErrors;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.FullDisk;
import dev.herald.store.sqlite.SqliteOptions;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A full disk under a running gateway (a real SQLITE_FULL, {@link FullDisk}): the store stopped taking writes, new
 * messages were refused (left to the platform to deliver again), a running turn waited, and once space was free the
 * store came back by itself: the waiting turn was answered once, and every refused message once when delivered again.
 * Before, the first SQLITE_FULL left every later write failing with "statement is not executing" until a restart.
 */
class StoreFullDiskTest extends GatewaySpec {
    static final String LONG_ANSWER = "z".repeat(20_000); // needs new pages whatever room the tables' last pages have
    final SessionSource bob = Harness.dm("telegram", "777", "u2");

    @BeforeEach
    void onSqliteWithAnOutageWait() {
        h = new Harness(dir, (home, clock) -> SqliteStorage.open(home.resolve("herald.db"), clock,
                SqliteOptions.defaults().withOutageWait(Duration.ofSeconds(60)))).platform("telegram", true);
        h.allowedUsers.add("u2");
    }

    /** A platform that redelivers what was not taken, as Telegram does for an update that was not confirmed. */
    private static Admission deliver(LoopbackPlatform platform, SessionSource from, String text, String messageId) {
        return platform.say(from, text, messageId);
    }

    @Test
    void fullDisk_refusesNewMessages_waitsOutTheRunningTurn_andRecoversWithoutARestart() {
        h.start();
        LoopbackPlatform telegram = h.loopback("telegram");
        SqliteStorage store = (SqliteStorage) h.storage;
        ScriptedAgent.Hold hold = h.agent.hold(LONG_ANSWER);
        assertThat(deliver(telegram, bob, "write a long text", "b-1")).isEqualTo(Admission.ACCEPTED);
        hold.awaitArrival(Harness.WAIT);

        FullDisk.fill(store);
        hold.release(); // the turn's answer does not fit: its writes wait
        await().atMost(Harness.WAIT).until(() -> !h.gateway.status().ready());

        assertThat(h.gateway.status().store().reason()).isEqualTo("the disk is full");
        assertThat(deliver(telegram, alice, "are you there?", "a-1")).as("not taken: Telegram keeps it")
                .isEqualTo(Admission.REJECTED_UNAVAILABLE);
        assertThat(deliver(telegram, alice, "hello?", "a-2")).isEqualTo(Admission.REJECTED_UNAVAILABLE);
        assertThat(telegram.sent()).as("nothing was answered while the disk was full").isEmpty();

        FullDisk.free(store);

        await().atMost(Harness.WAIT).until(() -> h.gateway.status().ready());
        await().atMost(Harness.WAIT).until(() -> h.storage.turns().latestStarted(h.key(bob)).map(TurnRecord::state)
                .orElse(null) == TurnState.DELIVERED);
        assertThat(deliver(telegram, alice, "are you there?", "a-1")).isEqualTo(Admission.ACCEPTED);
        assertThat(deliver(telegram, alice, "hello?", "a-2")).isEqualTo(Admission.ACCEPTED);
        telegram.awaitSent("echo: hello?"::equals, Harness.WAIT);

        assertThat(telegram.sent().stream().filter(s -> s.target().chatId().equals("777")).map(LoopbackPlatform.Sent::text)
                .collect(Collectors.joining())).as("the waiting turn's answer, once").isEqualTo(LONG_ANSWER);
        assertThat(telegram.sentMatching("echo: are you there?"::equals)).hasSize(1);
        assertThat(telegram.sentMatching("echo: hello?"::equals)).hasSize(1);
        assertThat(h.storage.turns().inState(TurnState.FAILED, 10)).as("no turn failed for the full disk").isEmpty();
        assertThat(telegram.sent()).noneMatch(s -> s.message().kind() == MessageKind.ERROR)
                .allSatisfy(s -> assertThat(UserErrors.unfit(s.text())).isEmpty());
    }
}
