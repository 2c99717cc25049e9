package dev.herald.agent;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.TurnListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A turn listener that keeps every call, in order, as short text events. */
final class RecordingListener implements TurnListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<ChatMessage> messages = new CopyOnWriteArrayList<>();
    final List<String> deltas = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstDelta = new CountDownLatch(1);

    @Override
    public void onMessage(ChatMessage message) {
        messages.add(message);
        events.add("message:" + message.role().wire() + ":" + message.content());
    }

    @Override
    public void onDelta(String text) {
        deltas.add(text);
        events.add("delta:" + text);
        firstDelta.countDown();
    }

    @Override
    public void onUsage(long inputTokens, long outputTokens) {
        events.add("usage:" + inputTokens + "/" + outputTokens);
    }

    void awaitDelta() throws InterruptedException {
        if (!firstDelta.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("no delta within 5 s");
        }
    }
}
