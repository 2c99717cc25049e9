package dev.herald.agent.tool;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Reads a process's output on a virtual thread, keeping at most {@code limit} bytes: the first two thirds
 * and a ring of the last third, so a long build log still shows its start and its final error.
 */
final class OutputCapture {
    private final InputStream in;
    private final byte[] head;
    private final byte[] tail;
    private final CountDownLatch done = new CountDownLatch(1);
    private int headUsed;
    private long total;

    private OutputCapture(InputStream in, int limit) {
        this.in = in;
        this.head = new byte[limit * 2 / 3];
        this.tail = new byte[limit - head.length];
    }

    static OutputCapture start(InputStream in, int limit) {
        OutputCapture capture = new OutputCapture(in, limit);
        Thread.ofVirtual().name("tool-output").start(capture::pump);
        return capture;
    }

    private void pump() {
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (this) {
                    keep(buffer, n);
                }
            }
        } catch (IOException closed) {
            // the stream was closed under us (process killed or capture abandoned): keep what arrived
        } finally {
            done.countDown();
        }
    }

    private void keep(byte[] buffer, int n) {
        for (int i = 0; i < n; i++) {
            if (headUsed < head.length) {
                head[headUsed++] = buffer[i];
            } else if (tail.length > 0) {
                tail[(int) ((total - head.length) % tail.length)] = buffer[i];
            }
            total++;
        }
    }

    /** Waits up to {@code millis} for the end of the output; then closes the stream (a background child may hold it open). */
    void finish(long millis) {
        try {
            if (!done.await(millis, TimeUnit.MILLISECONDS)) {
                in.close();
                done.await(millis, TimeUnit.MILLISECONDS);
            }
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The kept output as text, with a marker where bytes were dropped. */
    synchronized String text() {
        String start = new String(head, 0, headUsed, StandardCharsets.UTF_8);
        if (total <= head.length) {
            return start;
        }
        long tailBytes = Math.min(tail.length, total - head.length);
        byte[] last = new byte[(int) tailBytes];
        long first = total - tailBytes;
        for (int i = 0; i < tailBytes; i++) {
            last[i] = tail[(int) ((first - head.length + i) % tail.length)];
        }
        long dropped = total - head.length - tailBytes;
        String marker = dropped > 0 ? "\n…[" + Texts.number(dropped) + " bytes omitted]…\n" : "";
        return start + marker + new String(last, StandardCharsets.UTF_8);
    }

    synchronized long totalBytes() {
        return total;
    }
}
