package dev.herald.agent.model;

import dev.herald.core.agent.ChatMessage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The request encoding of chat messages the model was sent lately, so that a continuing conversation encodes only its
 * new messages: a history of a thousand messages is spliced from bytes, not written again.
 *
 * <p>Keyed by the message's value (a message's encoding depends on nothing else), so there is nothing to invalidate:
 * an equal message from another session or another node shares the entry. Lookups are cheap because the history's
 * messages hold the same {@code String} objects turn after turn (the store's transcript cache), whose hashes are cached
 * and whose equality is decided by identity first.
 *
 * <p>Bounded by bytes: two generations, each up to half of {@link #MAX_BYTES} (an entry is counted as its encoded
 * length twice, for the key's text, plus a fixed cost). A hit in the old generation moves the entry to the young
 * one; when the young one is full it becomes the old one and the old one is dropped, so what a running conversation
 * keeps reusing stays and what nobody asked for during a whole generation goes. Messages with images are never kept
 * (their data URLs are large and they are sent once).
 *
 * <p>A message is kept only when it is encoded a second time. Most messages are sent once and never again (the one
 * message of a new conversation, a stateless request), and keeping them filled the cache with what nobody asks for: a
 * gateway answering new conversations grew its heap until the bound, by about 270 bytes a turn. A fixed table of hashes
 * ({@value #SEEN_SLOTS} slots, 256 KiB) remembers what was encoded once; a conversation pays one more encoding per
 * message (on the turn after it was first sent) and is spliced from kept bytes from then on. Two messages whose hashes
 * share a slot only cost a lost admission or an early one, never a wrong encoding: the maps are keyed by value.
 */
final class EncodedMessages {
    /** Estimated bytes kept at most (32 MiB). */
    static final long MAX_BYTES = 32L * 1024 * 1024;
    private static final int ENTRY_OVERHEAD = 128;
    static final int SEEN_SLOTS = 1 << 16;

    /** The spread hash of a message encoded once (0: none); racy by design, an int is written whole. */
    private final int[] seenOnce = new int[SEEN_SLOTS];

    private final long generationBytes;
    private volatile ConcurrentHashMap<ChatMessage, byte[]> young = new ConcurrentHashMap<>();
    private volatile ConcurrentHashMap<ChatMessage, byte[]> old = new ConcurrentHashMap<>();
    private final AtomicLong youngBytes = new AtomicLong();

    EncodedMessages() {
        this(MAX_BYTES);
    }

    EncodedMessages(long maxBytes) {
        this.generationBytes = maxBytes / 2;
    }

    /** The message's encoding, from the cache or from {@code encoder} (then kept). */
    byte[] get(ChatMessage message, Function<ChatMessage, byte[]> encoder) {
        if (message.hasImages()) {
            return encoder.apply(message);
        }
        byte[] bytes = young.get(message);
        if (bytes != null) {
            return bytes;
        }
        bytes = old.get(message);
        if (bytes == null) {
            bytes = encoder.apply(message);
            if (firstSight(message)) {
                return bytes;
            }
        }
        long cost = 2L * bytes.length + ENTRY_OVERHEAD;
        if (cost > generationBytes / 4) {
            return bytes;
        }
        young.put(message, bytes);
        if (youngBytes.addAndGet(cost) > generationBytes) {
            rotate();
        }
        return bytes;
    }

    /** Whether this is the first time the message is encoded lately (and remembers that it was). */
    private boolean firstSight(ChatMessage message) {
        int h = message.hashCode() * 0x9E3779B9;
        h = h == 0 ? 1 : h;
        int slot = (h ^ (h >>> 16)) & (SEEN_SLOTS - 1);
        if (seenOnce[slot] == h) {
            return false;
        }
        seenOnce[slot] = h;
        return true;
    }

    private synchronized void rotate() {
        if (youngBytes.get() <= generationBytes) {
            return; // another thread rotated first
        }
        old = young;
        young = new ConcurrentHashMap<>();
        youngBytes.set(0);
    }

    /** Entries held in both generations (for tests). */
    int size() {
        return young.size() + old.size();
    }
}
