package dev.herald.agent.model;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A stream observer that keeps what it was given and lets a test wait for the first content. It collects only (a
 * retry starts it over), unless made {@link #showing()}, which plays a person reading the content as it streams.
 */
final class Recorder implements StreamObserver {
    final List<String> content = new CopyOnWriteArrayList<>();
    final List<String> reasoning = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstContent = new CountDownLatch(1);
    private final boolean shows;
    volatile int restarts;

    Recorder() {
        this(false);
    }

    private Recorder(boolean shows) {
        this.shows = shows;
    }

    /** An observer whose content reaches a person at once: the client must not ask again after it. */
    static Recorder showing() {
        return new Recorder(true);
    }

    @Override
    public boolean showsContent() {
        return shows;
    }

    @Override
    public void onRestart() {
        restarts++;
        content.clear();
        reasoning.clear();
    }

    @Override
    public void onContent(String delta) {
        content.add(delta);
        firstContent.countDown();
    }

    @Override
    public void onReasoning(String delta) {
        reasoning.add(delta);
    }

    String text() {
        return String.join("", content);
    }

    void awaitContent() throws InterruptedException {
        if (!firstContent.await(5, TimeUnit.SECONDS)) {
            throw new AssertionError("no content was streamed within 5 s");
        }
    }
}
