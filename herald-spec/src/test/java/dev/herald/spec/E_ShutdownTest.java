package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.gateway.StopReport;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Spec E: shutdown and restart. */
class E_ShutdownTest extends GatewaySpec {
    static final String RESTART_BANNER = "\u26a0\ufe0f Gateway restarting \u2014 Your current task will be interrupted. "
            + "Send any message after restart and I'll try to resume where you left off.";
    static final String SHUTDOWN_BANNER = "\u26a0\ufe0f Gateway shutting down \u2014 Your current task will be interrupted.";

    @Test
    void E1_aTimedOutDrainMarksRunningSessionsBeforeInterruptingThem() {
        h = new Harness(dir).platform("telegram", true);
        MarkAtInterrupt agent = new MarkAtInterrupt(h);
        h.agentOverride = agent;
        h.start();
        h.loopback("telegram").say(alice, "long task");
        agent.awaitRunning();

        StopReport report = h.gateway.stop(StopKind.SHUTDOWN, false);

        assertThat(report.interrupted()).containsExactly(h.key(alice));
        assertThat(agent.seenAtInterrupt).as("the mark was on disk when the interrupt arrived").hasSize(1);
        assertThat(agent.seenAtInterrupt.get(0)).isPresent().get()
                .satisfies(e -> {
                    assertThat(e.resumePending()).isTrue();
                    assertThat(e.resumeReason()).isEqualTo(ResumeReason.SHUTDOWN_TIMEOUT);
                });
        h.restart();
        assertThat(h.entry(alice).resumePending()).as("durable across the restart").isTrue();
    }

    @Test
    void E1_aTurnSendingItsReplyWhenTheStopComes_isNotMarkedNorCounted_andIsNotResumed() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withDrainTimeout(Duration.ofSeconds(3));
        h.allowedUsers.add("u2");
        SessionSource bob = Harness.dm("telegram", "654321", "u2");
        h.start();
        ScriptedAgent.Hold stuck = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long task");
        stuck.awaitArrival(Harness.WAIT);
        // bob's turn has its answer and is sending it (slowly) when the stop comes: it still holds its lane
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch sendMayFinish = new CountDownLatch(1);
        h.loopback("telegram").onSend(m -> {
            if (m.text().equals("echo: short task")) {
                sending.countDown();
                await(sendMayFinish);
            }
            return SendResult.sent("m-1");
        });
        h.loopback("telegram").say(bob, "short task");
        await(sending);

        var stopping = java.util.concurrent.CompletableFuture.supplyAsync(() -> h.gateway.stop(StopKind.RESTART, false));
        org.awaitility.Awaitility.await().atMost(Harness.WAIT).until(() -> h.entry(alice).resumePending());
        sendMayFinish.countDown();
        StopReport report = stopping.join();

        assertThat(report.interrupted()).containsExactly(h.key(alice));
        assertThat(h.entry(alice).resumePending()).isTrue();
        assertThat(h.entry(bob).resumePending()).as("bob's turn finished; nothing of his is left to resume").isFalse();
        assertThat(h.entry(bob).interruptedRestarts()).as("sending a reply is not being cut off").isZero();
        h.restart();
        h.start();
        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.calls()).singleElement().satisfies(c -> assertThat(c.sessionKey()).isEqualTo(h.key(alice).value()));
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void E1_aRestartMarksWithTheRestartReason() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(alice, "long task");
        hold.awaitArrival(Harness.WAIT);

        h.gateway.stop(StopKind.RESTART, false);

        SessionEntry e = h.entry(alice);
        assertThat(e.resumePending()).isTrue();
        assertThat(e.resumeReason()).isEqualTo(ResumeReason.RESTART_TIMEOUT);
    }

    @Test
    void E2_theHomeChannelIsToldOfARestartEvenWithNoActiveSession() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.start();

        h.gateway.stop(StopKind.RESTART, false);

        assertThat(h.loopback("telegram").sent()).singleElement().satisfies(s -> {
            assertThat(s.text()).isEqualTo(RESTART_BANNER);
            assertThat(s.target().chatId()).isEqualTo("999");
            assertThat(s.target().threadId()).isNull();
        });
    }

    @Test
    void E2_aShutdownUsesTheShutdownWording() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.start();

        h.gateway.stop(StopKind.SHUTDOWN, false);

        assertThat(h.loopback("telegram").sent()).extracting(LoopbackPlatform.Sent::text).containsExactly(SHUTDOWN_BANNER);
    }

    @Test
    void E3_anActiveThreadAndAHomeChannelInTheSameChatGetOneMessageEach() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.start();
        SessionSource inTopic = Harness.group("telegram", "999", "u1", "topic-7");
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(inTopic, "work in the topic");
        hold.awaitArrival(Harness.WAIT);

        h.gateway.stop(StopKind.RESTART, false);

        List<LoopbackPlatform.Sent> sent = h.loopback("telegram").sentMatching(RESTART_BANNER::equals);
        assertThat(sent).hasSize(2);
        // the notices go out concurrently: one in the topic, one to the home channel, in either order
        assertThat(sent).extracting(s -> s.target().threadId()).containsExactlyInAnyOrder("topic-7", null);
        assertThat(sent).allMatch(s -> s.target().chatId().equals("999"));
    }

    @Test
    void E3_anActiveChatThatIsAlsoTheHomeChannelIsToldOnce() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.start();
        SessionSource home = Harness.dm("telegram", "999", "u1");
        ScriptedAgent.Hold hold = h.agent.hold("never");
        h.loopback("telegram").say(home, "work");
        hold.awaitArrival(Harness.WAIT);

        h.gateway.stop(StopKind.RESTART, false);

        assertThat(h.loopback("telegram").sentMatching(RESTART_BANNER::equals)).hasSize(1);
    }

    @Test
    void E3_aFailedHomeSendIsAttemptedOnce() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.start();
        h.loopback("telegram").onSend(m -> SendResult.failed("chat not found", false));

        h.gateway.stop(StopKind.RESTART, false);

        assertThat(h.loopback("telegram").failedSends()).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo(RESTART_BANNER));
    }

    @Test
    void E4_aSessionInterruptedByThreeStopsInARowIsSuspendedAndStartsFresh() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        ScriptedAgent.Hold first = h.agent.hold("never");
        h.loopback("telegram").say(alice, "loop forever");
        first.awaitArrival(Harness.WAIT);
        String original = h.entry(alice).sessionId();
        h.gateway.stop(StopKind.RESTART, false);
        for (int stop = 2; stop <= 3; stop++) {
            h.restart();
            ScriptedAgent.Hold resumed = h.agent.hold("never");
            h.startAsync();
            resumed.awaitArrival(Harness.WAIT);
            h.gateway.stop(StopKind.RESTART, false);
        }
        assertThat(h.entry(alice).interruptedRestarts()).as("the one counter, on the session row").isEqualTo(3);

        h.restart();
        h.start();

        SessionEntry suspended = h.entry(alice);
        assertThat(suspended.suspendReason()).isEqualTo(SuspendReason.STUCK_LOOP);
        assertThat(suspended.interruptedRestarts()).isZero();
        assertThat(h.agent.calls()).as("a suspended session is not resumed").isEmpty();
        h.loopback("telegram").say(alice, "hello?");
        h.agent.awaitCalls(1, Harness.WAIT);
        assertThat(h.agent.messages()).containsExactly("hello?");
        SessionEntry fresh = h.entry(alice);
        assertThat(fresh.sessionId()).isNotEqualTo(original);
        assertThat(fresh.autoResetReason()).isNotNull();
    }

    @Test
    void E1_aHomeChannelNoticeThatHangs_doesNotDelayTheMarks_andTheStopEndsWithinItsBounds() {
        h = new Harness(dir).platform("telegram", true).home("telegram", "999", null);
        h.settings = h.settings.withDrainTimeout(Duration.ofMillis(500)).withNoticeTimeout(Duration.ofSeconds(2));
        MarkAtInterrupt agent = new MarkAtInterrupt(h);
        h.agentOverride = agent;
        h.start();
        CountDownLatch never = new CountDownLatch(1);
        h.loopback("telegram").onSend(m -> {
            if (m.target().chatId().equals("999")) {
                await(never); // the home channel's platform never answers
            }
            return SendResult.sent("ok");
        });
        h.loopback("telegram").say(alice, "long task");
        agent.awaitRunning();
        java.util.concurrent.atomic.AtomicReference<Optional<SessionEntry>> atDeadline = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.ScheduledExecutorService probe = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        probe.schedule(() -> atDeadline.set(h.storage.sessions().find(h.key(alice))), 400, java.util.concurrent.TimeUnit.MILLISECONDS);

        long t0 = System.nanoTime();
        StopReport report = h.gateway.stop(StopKind.RESTART, false);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        probe.shutdown();
        never.countDown();

        assertThat(atDeadline.get()).as("read before the 500 ms drain deadline").isPresent().get().isNotNull();
        assertThat(atDeadline.get().orElseThrow().resumePending()).as("marked while the home notice still hung").isTrue();
        assertThat(agent.seenAtInterrupt).singleElement().satisfies(e -> assertThat(e.orElseThrow().resumePending()).isTrue());
        assertThat(report.interrupted()).containsExactly(h.key(alice));
        assertThat(h.loopback("telegram").sentMatching(RESTART_BANNER::equals)).as("the active chat was told")
                .singleElement().satisfies(s -> assertThat(s.target().chatId()).isEqualTo("123456"));
        assertThat(tookMs).as("bounded by the notice timeout, not by the hanging platform").isLessThan(10_000);
    }

    /** Holds its turn until interrupted and records what the store said at the moment of the interrupt. */
    static final class MarkAtInterrupt implements Agent {
        final List<Optional<SessionEntry>> seenAtInterrupt = new CopyOnWriteArrayList<>();
        final CountDownLatch running = new CountDownLatch(1);
        private final Harness h;

        MarkAtInterrupt(Harness h) {
            this.h = h;
        }

        void awaitRunning() {
            try {
                running.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            CountDownLatch done = new CountDownLatch(1);
            interrupt.onRaise(() -> {
                seenAtInterrupt.add(h.storage.sessions().find(new SessionKey(request.sessionKey())));
                done.countDown();
            });
            running.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new TurnOutcome.Interrupted(interrupt.reason());
        }

        @Override
        public String describe() {
            return "mark-at-interrupt";
        }
    }
}
