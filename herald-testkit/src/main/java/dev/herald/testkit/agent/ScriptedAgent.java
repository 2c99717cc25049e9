package dev.herald.testkit.agent;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An agent whose every turn follows a script, for tests of the gateway. Each turn takes the next
 * scripted step; with none left it answers {@code echo: <message>}. A step can reply, end with any
 * outcome, or hold the turn open until the test releases it or the turn is interrupted. Every request
 * is recorded, so tests can assert exactly what the model would have been told.
 */
public final class ScriptedAgent implements Agent {

    /** A held turn: the test waits for it to arrive, then releases it (or the gateway interrupts it). */
    public static final class Hold {
        private final CountDownLatch arrived = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final String reply;
        private volatile TurnRequest request;

        private Hold(String reply) {
            this.reply = reply;
        }

        public TurnRequest awaitArrival(Duration max) {
            try {
                if (!arrived.await(max.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("held turn did not start within " + max.toMillis() + " ms");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the held turn", e);
            }
            return request;
        }

        public boolean arrived() {
            return arrived.getCount() == 0;
        }

        public void release() {
            released.countDown();
        }
    }

    private final ConcurrentLinkedQueue<Function<TurnRequest, Object>> script = new ConcurrentLinkedQueue<>();
    private final List<TurnRequest> calls = new CopyOnWriteArrayList<>();

    /** The next turn answers {@code text}. */
    public ScriptedAgent reply(String text) {
        script.add(r -> new TurnOutcome.Final(text));
        return this;
    }

    /** The next turn sends {@code files} (as the send_file tool does) and answers {@code text}. */
    public ScriptedAgent replyWithFiles(String text, dev.herald.core.platform.OutboundFile... files) {
        script.add(r -> new WithFiles(text, List.of(files)));
        return this;
    }

    /** A turn that sends files and answers text. */
    private record WithFiles(String text, List<dev.herald.core.platform.OutboundFile> files) {
    }

    /** The next turn ends with {@code outcome} (its reply, if any, is reported as an assistant message). */
    public ScriptedAgent outcome(TurnOutcome outcome) {
        script.add(r -> outcome);
        return this;
    }

    /** The next turn holds until released, then answers {@code reply}; an interrupt ends it as interrupted. */
    public Hold hold(String reply) {
        Hold h = new Hold(reply);
        script.add(r -> h);
        return h;
    }

    /** Every request this agent received, in order. */
    public List<TurnRequest> calls() {
        return List.copyOf(calls);
    }

    /** The user messages the agent received, in order. */
    public List<String> messages() {
        return calls.stream().map(TurnRequest::userMessage).toList();
    }

    /** Waits until at least {@code n} turns have started. */
    public List<TurnRequest> awaitCalls(int n, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (calls.size() < n && System.nanoTime() < deadline) {
            sleep(5);
        }
        if (calls.size() < n) {
            throw new AssertionError("expected " + n + " agent turn(s) within " + max.toMillis() + " ms, saw " + calls.size() + ": " + messages());
        }
        return calls();
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        calls.add(request);
        Function<TurnRequest, Object> step = script.poll();
        Object result = step == null ? new TurnOutcome.Final("echo: "
                + dev.herald.core.platform.MessageEvent.withAttachmentLines(request.userMessage(), request.attachments())) : step.apply(request);
        if (result instanceof Hold h) {
            h.request = request;
            interrupt.onRaise(h.released::countDown);
            h.arrived.countDown();
            try {
                h.released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (interrupt.isRaised()) {
                return new TurnOutcome.Interrupted(interrupt.reason());
            }
            result = new TurnOutcome.Final(h.reply);
        }
        if (result instanceof WithFiles w) {
            w.files().forEach(listener::onFile);
            result = new TurnOutcome.Final(w.text());
        }
        TurnOutcome outcome = (TurnOutcome) result;
        if (outcome.replyText() != null && !(outcome instanceof TurnOutcome.Interrupted)) {
            listener.onMessage(ChatMessage.assistant(outcome.replyText()));
        }
        return outcome;
    }

    @Override
    public String describe() {
        return "scripted test agent";
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
