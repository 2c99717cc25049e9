package dev.herald.agent.model;

/**
 * Receives partial output of a streamed model call, on the calling thread, in order. Callbacks must be
 * quick: the stream is read on the same thread.
 *
 * <p>Retries. A stream that breaks off (dropped, stalled past the idle timeout, ended without {@code [DONE]} or a
 * finish reason) is asked again, within the client's retry limit, as long as none of its content has reached a
 * person: an observer that shows content as it arrives says so with {@link #showsContent()}, and once it was given
 * some content the call fails instead (a second answer would repeat what the person already read). An observer that
 * only collects is told {@link #onRestart()} when the attempt that fed it is given up and the call starts over.
 * Reasoning is never shown to anyone, so it never stops a retry.
 */
public interface StreamObserver {

    /** Part of the assistant's visible answer. Never empty. */
    default void onContent(String delta) {
    }

    /** Part of the model's reasoning (servers call it {@code reasoning_content} or {@code reasoning}). Never empty. */
    default void onReasoning(String delta) {
    }

    /**
     * True when content given to {@link #onContent} reaches a person at once (a chat that streams its edits, an API
     * client reading an event stream); false (the default) for an observer that only collects or measures.
     */
    default boolean showsContent() {
        return false;
    }

    /** The content and reasoning given so far belong to an attempt that broke off; the call starts over. */
    default void onRestart() {
    }

    StreamObserver NONE = new StreamObserver() {
    };
}
