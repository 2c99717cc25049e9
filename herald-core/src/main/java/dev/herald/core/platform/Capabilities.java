package dev.herald.core.platform;

/**
 * What a platform can do, as data. The core splits long text, shows typing and streams partial
 * replies from these values, never by probing the adapter or by its name.
 *
 * @param interactive   a person reads and answers in real time; false for webhooks and the API server,
 *                      where a resumed turn must continue on its own (spec C9)
 * @param typing        the platform has a typing indicator worth refreshing while a turn runs
 * @param edits         sent messages can be edited (used for streamed replies)
 * @param threads       conversations can have threads or topics
 * @param streaming     the adapter wants partial reply text while a turn runs
 * @param maxTextLength the longest text one message may carry; longer replies are split
 */
public record Capabilities(
        boolean interactive, boolean typing, boolean edits, boolean threads, boolean streaming, int maxTextLength) {

    public Capabilities {
        if (maxTextLength < 64) {
            throw new IllegalArgumentException("maxTextLength must be at least 64, was " + maxTextLength);
        }
    }

    /** A plain interactive chat: no typing, no edits, no threads, 4096 characters per message. */
    public static Capabilities basicChat() {
        return new Capabilities(true, false, false, false, false, 4096);
    }
}
