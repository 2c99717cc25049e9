package dev.herald.agent.model;

/**
 * Receives partial output of a streamed model call, on the calling thread, in order. Callbacks must be
 * quick: the stream is read on the same thread.
 */
public interface StreamObserver {

    /** Part of the assistant's visible answer. Never empty. */
    default void onContent(String delta) {
    }

    /** Part of the model's reasoning (servers call it {@code reasoning_content} or {@code reasoning}). Never empty. */
    default void onReasoning(String delta) {
    }

    StreamObserver NONE = new StreamObserver() {
    };
}
