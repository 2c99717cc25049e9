package dev.herald.web.chat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The open event streams of the web chat, by conversation, and what they missed.
 *
 * <p>Replies need no keeping here: the transcript holds them and the page fetches what it lacks when it
 * (re)connects. What the transcript does not hold (command answers, notices, errors, approval
 * questions) is kept per conversation when no page is connected ({@link #MAILBOX_LIMIT} frames and
 * {@link #MAILBOXES} conversations, the newest kept) and handed to the next stream that opens for it.
 * An approval question stays open until the conversation gets its next answer, so a page that
 * reconnects meanwhile still shows its buttons.
 *
 * <p>All methods are synchronized on this object: publishing and subscribing must not interleave, or a
 * kept frame could be delivered twice or not at all. Each frame is pre-encoded JSON.
 */
final class ChatStreams {
    static final int MAILBOX_LIMIT = 50;
    static final int MAILBOXES = 1_000;
    private static final int QUEUE_LIMIT = 10_000;
    /** Put on a subscriber's queue to end its stream. */
    static final byte[] END = new byte[0];

    /** One open event stream; its handler thread drains {@link #next}. */
    static final class Subscriber {
        private final String conversation;
        private final BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>(QUEUE_LIMIT);

        private Subscriber(String conversation) {
            this.conversation = conversation;
        }

        /** The next frame, {@link #END} when the stream must end, or null after {@code millis} without one. */
        byte[] next(long millis) throws InterruptedException {
            return frames.poll(millis, TimeUnit.MILLISECONDS);
        }

        private boolean offer(byte[] frame) {
            return frames.offer(frame);
        }
    }

    private final Map<String, Set<Subscriber>> open = new HashMap<>();
    /** Kept frames by conversation, oldest conversation first; at most {@link #MAILBOXES} conversations are kept. */
    private final Map<String, Deque<byte[]>> mailbox = new LinkedHashMap<>();
    private final Map<String, byte[]> openPrompts = new HashMap<>();
    private boolean closed;

    /** Opens a stream for {@code conversation} and queues what it missed: kept frames, then an open question. */
    synchronized Subscriber subscribe(String conversation, byte[] hello) {
        Subscriber s = new Subscriber(conversation);
        if (closed) {
            s.offer(END);
            return s;
        }
        s.offer(hello);
        Deque<byte[]> kept = mailbox.remove(conversation);
        boolean promptSent = false;
        byte[] prompt = openPrompts.get(conversation);
        if (kept != null) {
            for (byte[] f : kept) {
                s.offer(f);
                promptSent |= f == prompt;
            }
        }
        if (prompt != null && !promptSent) {
            s.offer(prompt);
        }
        open.computeIfAbsent(conversation, c -> new LinkedHashSet<>()).add(s);
        return s;
    }

    synchronized void unsubscribe(Subscriber s) {
        Set<Subscriber> set = open.get(s.conversation);
        if (set != null && set.remove(s) && set.isEmpty()) {
            open.remove(s.conversation);
        }
    }

    /** Sends a frame to every open stream of the conversation; returns how many took it. */
    synchronized int publish(String conversation, byte[] frame) {
        int n = 0;
        for (Subscriber s : open.getOrDefault(conversation, Set.of())) {
            if (s.offer(frame)) {
                n++;
            }
        }
        return n;
    }

    /** Publishes, keeping the frame for the next stream when no stream took it. */
    synchronized int publishOrKeep(String conversation, byte[] frame) {
        int n = publish(conversation, frame);
        if (n == 0 && !closed) {
            Deque<byte[]> kept = mailbox.computeIfAbsent(conversation, c -> new ArrayDeque<>());
            kept.addLast(frame);
            while (kept.size() > MAILBOX_LIMIT) {
                kept.removeFirst();
            }
            var oldest = mailbox.keySet().iterator();
            while (mailbox.size() > MAILBOXES && oldest.hasNext()) {
                oldest.next();
                oldest.remove();
            }
        }
        return n;
    }

    /** Records the conversation's open approval question (null clears it). */
    synchronized void prompt(String conversation, byte[] frame) {
        if (frame == null) {
            openPrompts.remove(conversation);
        } else {
            openPrompts.put(conversation, frame);
        }
    }

    /** The conversations that have at least one open stream now. */
    synchronized List<String> openConversations() {
        return List.copyOf(open.keySet());
    }

    synchronized int openStreams() {
        return open.values().stream().mapToInt(Set::size).sum();
    }

    /** Ends every open stream; later subscribers end at once. */
    synchronized void closeAll() {
        closed = true;
        List<Subscriber> all = new ArrayList<>();
        open.values().forEach(all::addAll);
        for (Subscriber s : all) {
            s.frames.clear();
            s.offer(END);
        }
        open.clear();
    }
}
