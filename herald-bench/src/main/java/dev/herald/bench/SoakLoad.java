package dev.herald.bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Steady load on one node: {@code clients} clients, each sending one message after another to sessions of its own (a new
 * session every {@value #SESSION_LENGTH} messages, so conversations stay short), until stopped or until a shared budget of
 * messages is spent. Each message is recorded in the ledger with what it came to.
 */
final class SoakLoad {
    static final int SESSION_LENGTH = 25;

    private final String prefix;
    private final Supplier<URI> endpoint;
    private final SoakLedger ledger;
    private final SoakClient client;
    private final AtomicInteger budget;
    private final long maxPauseMs;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final ConcurrentLinkedQueue<Long> answeredAt = new ConcurrentLinkedQueue<>();

    /**
     * {@code budget}: messages to send in all, or -1 to send until {@link #stop()}; {@code maxPause}: each client waits a
     * random time up to this between an answer and its next message (a person reading), so that some messages are sent
     * while a fault lasts rather than all waiting in turns that started before it.
     */
    SoakLoad(String prefix, Supplier<URI> endpoint, SoakLedger ledger, SoakClient.Counters counters, int budget, Duration maxPause) {
        this.prefix = prefix;
        this.endpoint = endpoint;
        this.ledger = ledger;
        this.client = new SoakClient(counters);
        this.budget = budget < 0 ? null : new AtomicInteger(budget);
        this.maxPauseMs = maxPause.toMillis();
    }

    /** Starts the clients; client {@code c} streams its answers when {@code streamed.test(c, m)} for its message {@code m}. */
    SoakLoad start(int clients, java.util.function.BiPredicate<Integer, Integer> streamed) {
        for (int c = 0; c < clients; c++) {
            int k = c;
            threads.add(Thread.ofVirtual().name("soak-client-" + prefix + "-" + c).start(() -> send(k, streamed)));
        }
        return this;
    }

    private void send(int c, java.util.function.BiPredicate<Integer, Integer> streamed) {
        for (int m = 0; !stop.get() && (budget == null || budget.getAndDecrement() > 0); m++) {
            String session = prefix + "-c" + c + "-s" + m / SESSION_LENGTH;
            String text = prefix + "-c" + c + "-m" + m;
            try {
                SoakClient.Outcome o = client.send(endpoint, session, text, streamed.test(c, m));
                ledger.add(session, text, o);
                if (o.kind() == SoakClient.Kind.ANSWERED || o.kind() == SoakClient.Kind.CUT_OFF) {
                    answeredAt.add(o.endedAt());
                }
                if (maxPauseMs > 0) {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(maxPauseMs + 1));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops sending new messages and waits for the clients' last ones to end. */
    void stop() throws InterruptedException {
        stop.set(true);
        join();
    }

    /** Waits until every client has ended (its budget spent). */
    void join() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        client.close();
    }

    /** Milliseconds from {@code since} (a nanoTime) to the first answer after it; -1 when none came. */
    long firstAnswerAfter(long since) {
        return answeredAt.stream().filter(t -> t - since > 0).mapToLong(t -> (t - since) / 1_000_000).min().orElse(-1);
    }
}
