package dev.herald.bench;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Asks a node's {@code GET /health/ready} every {@value #EVERY_MS} ms and keeps the moments its answer changed, to say
 * whether and for how long the node said it was not ready, and why.
 */
final class ReadyWatch implements AutoCloseable {
    private static final long EVERY_MS = 100;

    /** A change: from {@code at} (nanoTime) on, the node answered {@code status} ({@code storeDown}: naming store_unavailable). */
    record Change(long at, int status, boolean storeDown) {
    }

    private final List<Change> changes = new CopyOnWriteArrayList<>();
    private final Thread thread;

    ReadyWatch(SoakNode node) {
        thread = Thread.ofVirtual().name("soak-ready-" + node.name).start(() -> {
            Change last = null;
            while (!Thread.currentThread().isInterrupted()) {
                SoakNode.Readiness r = node.ready();
                Change now = new Change(System.nanoTime(), r.status(), r.body().contains("store_unavailable"));
                if (last == null || now.status() != last.status() || now.storeDown() != last.storeDown()) {
                    changes.add(now);
                    last = now;
                }
                try {
                    Thread.sleep(EVERY_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** The first moment after {@code since} the node said 503 store_unavailable; -1 when it never did. */
    long firstStoreDownAfter(long since) {
        return changes.stream().filter(c -> c.at() - since > 0 && c.storeDown()).mapToLong(Change::at).findFirst().orElse(-1);
    }

    /** The first moment from {@code since} on the node said 200 ({@code since} itself when it was ready then); -1 when it did not. */
    long firstReadyAfter(long since) {
        Change then = null;
        for (Change c : changes) {
            if (c.at() - since > 0) {
                if (then != null && then.status() == 200) {
                    return since;
                }
                if (c.status() == 200) {
                    return c.at();
                }
            }
            then = c.at() - since <= 0 ? c : then;
        }
        return then != null && then.status() == 200 ? since : -1;
    }

    /** Whether the node is ready as last seen. */
    boolean ready() {
        return !changes.isEmpty() && changes.getLast().status() == 200;
    }

    /** Total time the node said 503 store_unavailable between {@code from} and {@code to} (nanoTimes), in ms. */
    long storeDownMillis(long from, long to) {
        long total = 0;
        for (int i = 0; i < changes.size(); i++) {
            Change c = changes.get(i);
            if (!c.storeDown()) {
                continue;
            }
            long start = Math.max(c.at(), from);
            long end = Math.min(i + 1 < changes.size() ? changes.get(i + 1).at() : to, to);
            total += Math.max(0, end - start);
        }
        return total / 1_000_000;
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
