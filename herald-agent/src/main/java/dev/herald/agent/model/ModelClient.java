package dev.herald.agent.model;

import dev.herald.core.agent.Interrupt;

/**
 * One chat-completion call against a model. Implementations are thread-safe and blocking: the agent
 * calls them on the turn's virtual thread.
 *
 * <p>Interrupt contract: when {@code interrupt} is raised during the call, the in-flight request or
 * stream is cancelled and the call ends by throwing a {@link ModelException} whose
 * {@link ModelException#isInterrupted()} is true. Text already passed to the observer stays delivered.
 */
public interface ModelClient {

    /**
     * Sends the request and returns the whole answer. When {@link ModelRequest#stream()} is true, partial
     * text is passed to {@code observer} as it arrives, before this returns.
     *
     * @throws ModelException when the model cannot answer; the message says what failed and what to do
     */
    ModelResponse complete(ModelRequest request, StreamObserver observer, Interrupt interrupt) throws ModelException;

    /** A short description for logs and operators, such as {@code llama3.1 at http://127.0.0.1:11434/v1}. */
    String describe();

    /** The model's name alone, fit for any chat user (no URL, host or port), such as {@code llama3.1}. */
    default String modelName() {
        return "unnamed";
    }

    /**
     * The {@code reasoning_effort} values this model takes ({@code low}, {@code medium}, {@code high}); empty when it takes
     * none, and then a request's {@link ModelRequest#reasoningEffort()} is not sent.
     */
    default java.util.List<String> reasoningEfforts() {
        return java.util.List.of();
    }
}
