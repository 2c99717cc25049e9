package dev.herald.testkit.model;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A point where a scripted reply stops until the test says go: before anything is sent, or after a
 * number of stream events. {@link #awaitArrived} returns once a request has reached that point, so a test
 * knows the model call is in flight (and, for a hold after events, that text was sent) before it stops
 * or kills the gateway. Closing the server releases every hold and drops its connection.
 */
public final class Hold {
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile RecordedRequest request;
    private volatile boolean dropped;

    /** Waits until a request reaches this hold; fails the test when none does within {@code timeout}. */
    public RecordedRequest awaitArrived(Duration timeout) {
        try {
            if (!arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("fake model - no request reached the hold within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("fake model - interrupted while waiting for the hold", e);
        }
        return request;
    }

    /** Lets the held reply continue. */
    public void release() {
        released.countDown();
    }

    /** Lets the held reply go on by cutting its connection instead of answering. */
    public void drop() {
        dropped = true;
        released.countDown();
    }

    /** Called by the server's handler thread: marks arrival and blocks; true when the reply should go on. */
    boolean arriveAndWait(RecordedRequest at) {
        request = at;
        arrived.countDown();
        try {
            released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !dropped;
    }
}
