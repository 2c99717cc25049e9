package dev.herald.web.api;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PriorMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Plays the gateway for the API adapter: records the events it is handed and answers them the way the
 * real gateway does, through the adapter's {@code progress} and {@code send}: on a virtual thread for
 * accepted events, inline (before {@code accept} returns) for answered ones.
 */
final class ScriptedGateway implements InboundSink {

    @FunctionalInterface
    interface Answer {
        void answer(MessageEvent event, ScriptedGateway gateway) throws Exception;
    }

    final List<MessageEvent> events = new CopyOnWriteArrayList<>();
    final List<ConnectionState> connections = new CopyOnWriteArrayList<>();
    final List<SendResult> sendResults = new CopyOnWriteArrayList<>();
    private volatile Admission admission = Admission.ACCEPTED;
    private volatile Answer answer = (event, gateway) -> gateway.reply(event, "echo: " + event.text());
    private volatile PlatformAdapter adapter;
    private volatile java.util.function.Supplier<java.util.Optional<PriorMessage>> prior = java.util.Optional::empty;

    void attach(PlatformAdapter platformAdapter) {
        this.adapter = platformAdapter;
    }

    void admission(Admission next) {
        this.admission = next;
    }

    /** What a request sent again (admission DUPLICATE) finds of its first attempt, asked each time it looks. */
    void prior(java.util.function.Supplier<java.util.Optional<PriorMessage>> next) {
        this.prior = next;
    }

    @Override
    public java.util.Optional<PriorMessage> prior(Platform platform, String messageId) {
        return prior.get();
    }

    void answer(Answer next) {
        this.answer = next;
    }

    @Override
    public Admission accept(MessageEvent event) {
        events.add(event);
        Admission a = admission;
        if (a == Admission.ANSWERED) {
            run(event);
        } else if (a == Admission.ACCEPTED) {
            Thread.ofVirtual().start(() -> run(event));
        }
        return a;
    }

    @Override
    public void connectionChanged(Platform platform, ConnectionState state, String detail) {
        connections.add(state);
    }

    /** Sends one message answering {@code event}. */
    SendResult send(MessageEvent event, String text, MessageKind kind, int part, int parts) {
        SendResult result = adapter.send(new OutboundMessage(event.source().target(), text, kind, null, event.eventId(), part, parts));
        sendResults.add(result);
        return result;
    }

    SendResult reply(MessageEvent event, String text) {
        return send(event, text, MessageKind.REPLY, 1, 1);
    }

    void delta(MessageEvent event, String text) {
        adapter.progress(event.source().target(), event.eventId(), new StreamEvent.TextDelta(text));
    }

    MessageEvent lastEvent() {
        return events.getLast();
    }

    private void run(MessageEvent event) {
        try {
            answer.answer(event, this);
        } catch (Exception e) {
            throw new IllegalStateException("scripted gateway answer failed", e);
        }
    }
}
