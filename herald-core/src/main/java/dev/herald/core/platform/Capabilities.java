package dev.herald.core.platform;

import java.util.Objects;

/**
 * What a platform can do, as data. The core splits long text, shows typing, streams partial replies and decides
 * which node receives and runs what from these values, never by probing the adapter or by its name.
 *
 * @param interactive   a person reads and answers in real time; false for webhooks and the API server,
 *                      where a resumed turn must continue on its own (spec C9)
 * @param typing        the platform has a typing indicator worth refreshing while a turn runs
 *                      ({@link StreamEvent.Typing} through {@link PlatformAdapter#progress})
 * @param edits         sent messages can be edited (used for streamed replies)
 * @param threads       conversations can have threads or topics
 * @param streaming     the adapter wants partial reply text while a turn runs
 * @param buttons       the adapter can send buttons to press (none does yet)
 * @param files         the adapter can send files and images ({@link OutboundMessage#file()})
 * @param voice         the adapter can send voice notes
 * @param maxTextLength the longest text one message may carry, measured by {@code format}; longer replies are split
 * @param format        how the adapter writes the agent's Markdown, and how long a text is once written
 * @param delivery      which node receives and which runs the platform's turns
 * @param maxFileBytes  the largest file the platform accepts from a bot, in bytes (0 when it takes none); a larger one
 *                      is not sent, and the chat gets a line saying so instead
 */
public record Capabilities(
        boolean interactive, boolean typing, boolean edits, boolean threads, boolean streaming,
        boolean buttons, boolean files, boolean voice,
        int maxTextLength, TextFormat format, Delivery delivery, long maxFileBytes) {

    /**
     * Where a platform's messages are received and its turns run when several nodes share one store.
     *
     * @param singleConnection          the platform allows one connection only (a long poll with one cursor, one
     *                                  gateway socket per bot): one node holds it under a lease, the others stand by
     *                                  and still send replies through the platform's API, which needs no connection
     * @param turnsRunWhereReceived     the reply goes back over a request the receiving node holds open (the API
     *                                  server, the web chat): such a turn waits for its session's lease instead of
     *                                  being handed to the node that holds it
     */
    public record Delivery(boolean singleConnection, boolean turnsRunWhereReceived) {
        /** Any node may receive and any may run the turns: every node connects. */
        public static final Delivery ANY_NODE = new Delivery(false, false);
        /** One connection per platform, held by one node; replies go out from any. */
        public static final Delivery SINGLE_CONNECTION = new Delivery(true, false);
        /** Every node receives; a turn runs on the node that received it. */
        public static final Delivery WHERE_RECEIVED = new Delivery(false, true);
    }

    public Capabilities {
        if (maxTextLength < 64) {
            throw new IllegalArgumentException("maxTextLength must be at least 64, was " + maxTextLength);
        }
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(delivery, "delivery");
        maxFileBytes = files ? Math.max(0, maxFileBytes) : 0;
    }

    /** Capabilities that send no files. */
    public Capabilities(boolean interactive, boolean typing, boolean edits, boolean threads, boolean streaming, boolean buttons,
            boolean files, boolean voice, int maxTextLength, TextFormat format, Delivery delivery) {
        this(interactive, typing, edits, threads, streaming, buttons, files, voice, maxTextLength, format, delivery, 0);
    }

    /** These capabilities sending files of up to {@code maxBytes} (voice notes too when {@code voiceNotes}). */
    public Capabilities withFiles(long maxBytes, boolean voiceNotes) {
        return new Capabilities(interactive, typing, edits, threads, streaming, buttons, true, voiceNotes, maxTextLength, format, delivery,
                maxBytes);
    }

    /** Text only, written as Markdown, on any node. */
    public Capabilities(boolean interactive, boolean typing, boolean edits, boolean threads, boolean streaming, int maxTextLength) {
        this(interactive, typing, edits, threads, streaming, false, false, false, maxTextLength, TextFormat.MARKDOWN, Delivery.ANY_NODE);
    }

    /** A plain interactive chat: no typing, no edits, no threads, 4096 characters per message. */
    public static Capabilities basicChat() {
        return new Capabilities(true, false, false, false, false, 4096);
    }

    /** These capabilities with text written in {@code f}. */
    public Capabilities with(TextFormat f) {
        return new Capabilities(interactive, typing, edits, threads, streaming, buttons, files, voice, maxTextLength, f, delivery, maxFileBytes);
    }

    /** These capabilities with the delivery semantics {@code d}. */
    public Capabilities with(Delivery d) {
        return new Capabilities(interactive, typing, edits, threads, streaming, buttons, files, voice, maxTextLength, format, d, maxFileBytes);
    }
}
