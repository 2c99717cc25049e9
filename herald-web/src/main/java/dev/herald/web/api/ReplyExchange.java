package dev.herald.web.api;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.transcript.ToolCall;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The meeting point of one waiting HTTP request and the turn that answers it. Producers (the stateless
 * turn's listener, or the gateway through the adapter's {@code progress}/{@code send}) post signals; the
 * request's handler thread takes them in order and writes the response. Exactly one terminal signal is
 * ever posted (the first of finish/fail wins); deltas after it are dropped.
 */
final class ReplyExchange {

    /** What the handler thread receives. */
    sealed interface Signal {
        record Delta(String text) implements Signal {
        }

        /** One of the turn's tools started: a stream whose client stops the turn by leaving probes the connection from now on. */
        record ToolRunning() implements Signal {
        }

        /** The reply; {@code toolCalls} are calls of the client's own tools (finish reason {@code tool_calls}). */
        record Done(String text, String finishReason, Usage usage, List<ToolCall> toolCalls) implements Signal {
            public Done {
                toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
            }
        }

        record Failed(ApiError error) implements Signal {
        }
    }

    private final String completionId;
    private final Interrupt interrupt;
    private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicReference<Usage> usage = new AtomicReference<>(Usage.NONE);
    private String[] parts;
    private int partsReceived;

    /**
     * @param completionId the {@code chatcmpl-...} id the client sees
     * @param interrupt    the turn's interrupt when this adapter runs the turn itself; null when the gateway owns it
     */
    ReplyExchange(String completionId, Interrupt interrupt) {
        this.completionId = completionId;
        this.interrupt = interrupt;
    }

    String completionId() {
        return completionId;
    }

    /** More reply text, as the turn streams it. */
    void delta(String text) {
        if (text != null && !text.isEmpty() && !ended.get()) {
            signals.add(new Signal.Delta(text));
        }
    }

    /** A tool of the turn started (stateless turns report it; a session turn's client does not stop it by leaving). */
    void toolRunning() {
        if (!ended.get()) {
            signals.add(new Signal.ToolRunning());
        }
    }

    /** Ends the exchange with a reply; false when it had already ended. A null usage means the usage added so far. */
    boolean finish(String text, String finishReason, Usage usage) {
        return end(new Signal.Done(text == null ? "" : text, finishReason, usage == null ? this.usage.get() : usage, List.of()));
    }

    /** Ends the exchange with calls of the client's tools; false when it had already ended. */
    boolean finishWithToolCalls(String text, List<ToolCall> calls, Usage usage) {
        return end(new Signal.Done(text == null ? "" : text, "tool_calls", usage, calls));
    }

    /** Adds the usage of one model call (session turns report it as they run). */
    void addUsage(long in, long out) {
        usage.updateAndGet(u -> u.plus(in, out));
    }

    /** Ends the exchange with an error; false when it had already ended. */
    boolean fail(ApiError error) {
        return end(new Signal.Failed(error));
    }

    /**
     * Collects one part of a split reply; returns the whole text, parts joined in order, once the last
     * one is in, else null. A part of a different split (another {@code parts} count) starts over.
     */
    private volatile String linkBase = "";

    /** The scheme and host the client reached (links to files an answer sends start with it). */
    void linkBase(String base) {
        this.linkBase = base == null ? "" : base;
    }

    String linkBase() {
        return linkBase;
    }

    synchronized String addPart(OutboundMessage message) {
        if (message.parts() == 1) {
            return message.text();
        }
        if (parts == null || parts.length != message.parts()) {
            parts = new String[message.parts()];
            partsReceived = 0;
        }
        if (parts[message.part() - 1] == null) {
            partsReceived++;
        }
        parts[message.part() - 1] = message.text();
        if (partsReceived < parts.length) {
            return null;
        }
        String joined = String.join("", parts);
        parts = null;
        return joined;
    }

    /** The next signal, waiting at most {@code millis}; null when none came. */
    Signal next(long millis) throws InterruptedException {
        return signals.poll(Math.max(1, millis), TimeUnit.MILLISECONDS);
    }

    /** Raises the turn's interrupt (stateless turns only; the gateway owns session turns). */
    void interrupt(String why) {
        if (interrupt != null) {
            interrupt.raise(why);
        }
    }

    /** Whether a client leaving stops the turn: the adapter runs it (stateless), so nobody else could receive its answer. */
    boolean stoppable() {
        return interrupt != null;
    }

    boolean ended() {
        return ended.get();
    }

    private boolean end(Signal terminal) {
        if (!ended.compareAndSet(false, true)) {
            return false;
        }
        signals.add(terminal);
        return true;
    }
}
