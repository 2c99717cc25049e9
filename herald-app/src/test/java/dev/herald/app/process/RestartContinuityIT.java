package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What happens to a running conversation when the real {@code herald run} process is stopped, restarted
 * or killed, observed where it matters: at the model (what it is asked after the restart, and how many
 * times) and through the API.
 */
class RestartContinuityIT {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String NOTE = "[System note: The previous turn was interrupted";

    @TempDir
    Path home;
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() {
        model = FakeModelServer.start();
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private HeraldProcess configure(String gateway) throws Exception {
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), gateway, null);
        return herald;
    }

    /** Starts a turn on {@code session} and waits until the model holds it. */
    private Hold heldTurn(String session, String text) {
        Hold hold = model.enqueueHeld(Reply.text("never sent"));
        herald.chat(session, text);
        hold.awaitArrived(WAIT);
        return hold;
    }

    @Test
    void sigtermDuringATurn_theNextStartResumesItOnceWithTheShutdownNote() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        herald.start().awaitReady();
        heldTurn("build", "build the release");

        herald.terminate();
        assertThat(herald.awaitExit(WAIT)).isZero();
        model.enqueue(Reply.text("release built"));
        herald.start().awaitReady();

        RecordedRequest resumed = awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        assertThat(resumed.lastUserMessage()).contains("interrupted by a gateway shutdown", "CONTINUE the interrupted task",
                "already appear in the history");
        assertThat(resumed.messages()).extracting(m -> m.content()).contains("build the release");
        assertExactlyOnce(r -> r.lastUserMessage().startsWith(NOTE));
    }

    @Test
    void aSecondSigtermDuringALongDrain_stopsAtOnce_andTheNextStartStillResumesTheTurnOnce() throws Exception {
        configure("drain_timeout_seconds: 600");
        herald.start().awaitReady();
        heldTurn("report", "write the quarterly report");
        Path log = home.resolve("logs/herald.log");

        herald.terminate();
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> java.nio.file.Files.readString(log).contains("draining up to 600 s"));
        Thread.sleep(1_200); // an operator's second Ctrl-C, not the same one seen twice
        herald.terminate();

        assertThat(herald.awaitExit(WAIT)).isZero(); // far sooner than the 600 s drain
        assertThat(java.nio.file.Files.readString(log)).contains("runtime - SIGTERM received again: stopping now",
                "cutting off the running turns now (they are marked for resume)");
        model.enqueue(Reply.text("report written"));
        herald.start().awaitReady();
        RecordedRequest resumed = awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        assertThat(resumed.lastUserMessage()).contains("interrupted by a gateway shutdown");
        assertExactlyOnce(r -> r.lastUserMessage().startsWith(NOTE));
    }

    @Test
    void heraldRestartDuringATurn_aNewProcessResumesItOnceWithTheRestartNote() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        herald.start();
        long before = herald.awaitReady();
        heldTurn("deploy", "deploy the site");
        model.enqueue(Reply.text("deployed"));

        int rc = Main.run(cli(), "restart", "--home", home.toString(), "--timeout", "60");

        assertThat(rc).isZero();
        long after = herald.awaitReady(before);
        assertThat(after).isNotEqualTo(before);
        RecordedRequest resumed = awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        assertThat(HeraldProcess.alive(before)).as("the old process left after its drain (the restart handed over)").isFalse();
        assertThat(resumed.lastUserMessage()).contains("interrupted by a gateway restart", "CONTINUE the interrupted task");
        assertExactlyOnce(r -> r.lastUserMessage().startsWith(NOTE));
    }

    @Test
    void killDuringATurn_theRestartedProcessResumesItOnceAsInterrupted() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        herald.start();
        long before = herald.awaitReady();
        heldTurn("audit", "audit the logs");
        model.enqueue(Reply.text("audited"));

        herald.killGateway();

        herald.awaitReady(before);
        RecordedRequest resumed = awaitRequest(r -> r.lastUserMessage().startsWith(NOTE));
        assertThat(resumed.lastUserMessage()).contains("interrupted by a gateway interruption");
        assertExactlyOnce(r -> r.lastUserMessage().startsWith(NOTE));
    }

    @Test
    void killDuringATurn_pastTheFreshnessWindow_isNotResumedAndTheNextMessageHasNoNote() throws Exception {
        configure("drain_timeout_seconds: 0.5\nauto_continue_freshness_seconds: 1");
        herald.start(false, Map.of()).awaitReady();
        heldTurn("old", "an old task");
        herald.killGateway();
        Thread.sleep(2_500);

        herald.start(false, Map.of()).awaitReady();
        Thread.sleep(1_500);
        assertThat(model.requests()).as("nothing resumed").hasSize(1);
        String reply = HeraldProcess.answer(herald.chat("old", "something new").get());

        assertThat(reply).isEqualTo("echo: something new");
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("something new");
    }

    @Test
    void anOwnerRemovedFromTheAllowlistBeforeTheRestart_isNotResumedAndNothingIsClaimed() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        herald.rewriteConfig("    port: " + herald.port + "\n",
                "    port: " + herald.port + "\n    allow_all_users: false\n    allowed_users: [alice, bob]\n");
        herald.start(false, Map.of()).awaitReady();
        Hold hold = model.enqueueHeld(Reply.text("never sent"));
        herald.chat("owned", "alice's long task", "alice");
        hold.awaitArrived(WAIT);
        herald.terminate();
        assertThat(herald.awaitExit(WAIT)).isZero();
        herald.rewriteConfig("allowed_users: [alice, bob]", "allowed_users: [bob]");

        herald.start(false, Map.of()).awaitReady();
        Thread.sleep(2_000);

        assertThat(model.requests()).as("no resume turn for alice's session").hasSize(1);
        assertThat(herald.chat("owned", "still there?", "alice").get().statusCode()).as("alice is refused now").isEqualTo(403);
        herald.terminate();
        herald.awaitExit(WAIT);
        try (var storage = dev.herald.store.sqlite.SqliteStorage.open(home.resolve("herald.db"), java.time.Clock.systemUTC())) {
            var entry = storage.sessions().search(dev.herald.core.session.SessionQuery.all(10)).getFirst();
            assertThat(entry.resumePending()).as("left as it was").isTrue();
            long resumeTurns = java.util.Arrays.stream(dev.herald.core.turn.TurnState.values())
                    .flatMap(st -> storage.turns().inState(st, 100).stream())
                    .filter(t -> t.origin() == dev.herald.core.platform.MessageEvent.Origin.RESUME).count();
            assertThat(resumeTurns).as("nothing stored for the unauthorized owner").isZero();
        }
    }

    @Test
    void threeRestartsInterruptingOneSession_suspendItAndItsNextMessageStartsFresh() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        herald.start();
        long pid = herald.awaitReady();
        heldTurn("loop", "restart yourself");
        for (int restart = 1; restart <= 3; restart++) {
            Hold resumedHold = restart < 3 ? model.enqueueHeld(Reply.text("still looping")) : null;
            assertThat(Main.run(cli(), "restart", "--home", home.toString(), "--timeout", "60")).isZero();
            pid = herald.awaitReady(pid);
            if (resumedHold != null) {
                resumedHold.awaitArrived(WAIT);
            }
        }
        Thread.sleep(1_500);
        assertThat(model.requests()).as("the first turn and two resumes; the third start suspended the session").hasSize(3);

        String reply = HeraldProcess.answer(herald.chat("loop", "hello?").get());

        assertThat(reply).isEqualTo("echo: hello?");
        assertThat(model.lastRequest().messages()).extracting(m -> m.content()).doesNotContain("restart yourself");
    }

    @Test
    void aReplyRecordedButNotSentBeforeAKill_isDeliveredFromTheRecordNotRegenerated() throws Exception {
        configure("drain_timeout_seconds: 0.5");
        model.enqueue(Reply.text("the one answer"));
        herald.start(false, HeraldProcess.env("HERALD_CRASH_AT", "outbox.before-send")).awaitReady();

        herald.chat("ledger", "compute it");
        assertThat(herald.awaitExit(WAIT)).as("halted at the crash point, as kill -9 would").isEqualTo(137);
        herald.start(false, Map.of()).awaitReady();
        Thread.sleep(1_000);
        String next = HeraldProcess.answer(herald.chat("ledger", "what did you say?").get());

        assertThat(next).isEqualTo("echo: what did you say?");
        assertThat(model.requests()).as("the answer was not generated again").hasSize(2);
        assertThat(model.lastRequest().messages()).extracting(m -> m.content())
                .containsOnlyOnce("the one answer").doesNotContain(NOTE);
    }

    private RecordedRequest awaitRequest(Predicate<RecordedRequest> matching) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (RecordedRequest r : model.requests()) {
                if (matching.test(r)) {
                    return r;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no matching model request within " + WAIT.toSeconds() + " s; saw "
                + model.requests().stream().map(RecordedRequest::lastUserMessage).toList() + "\n" + herald.output());
    }

    /** Waits a little longer and checks that only one request ever matched (no second resume). */
    private void assertExactlyOnce(Predicate<RecordedRequest> matching) throws InterruptedException {
        Thread.sleep(2_000);
        List<RecordedRequest> all = model.requests().stream().filter(matching).toList();
        assertThat(all).as("matching model requests").hasSize(1);
    }

    private static CliEnvironment cli() {
        return new CliEnvironment(Map.of(), Path.of(System.getProperty("user.home")), new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()));
    }
}
