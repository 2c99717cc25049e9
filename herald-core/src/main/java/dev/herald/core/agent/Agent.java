package dev.herald.core.agent;

import dev.herald.core.turn.TurnOutcome;

/**
 * Runs one turn: given the history and the new user message, talk to the model (and tools) until a
 * final answer, a limit, an error or an interrupt, reporting every message to the listener as it
 * happens. Blocking; the gateway calls it on a virtual thread. Implementations never throw for
 * model or tool failures: those end the turn with an outcome that says so.
 */
public interface Agent {

    TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt);

    /**
     * Summarizes {@code history} on demand (/compress). Empty when this agent cannot, or when the
     * history is too short to be worth it.
     */
    default java.util.Optional<Compaction> compact(java.util.List<ChatMessage> history, Interrupt interrupt) {
        return java.util.Optional.empty();
    }

    /**
     * Summarizes the history of the chat {@code sessionKey} on demand ({@code /compress [focus words]}), with that chat's
     * model profile; {@code focus} (may be empty) names what the summary must keep above all. By default the focus is
     * ignored and {@link #compact(java.util.List, Interrupt)} answers.
     */
    default java.util.Optional<Compaction> compact(String sessionKey, java.util.List<ChatMessage> history, String focus,
            Interrupt interrupt) {
        return compact(history, interrupt);
    }

    /**
     * A side answer ({@code /btw}): one model call without tools, on {@code history} (a snapshot of the chat's transcript)
     * and {@code question}, with the model the turns of lane {@code sessionKey} use. Nothing is recorded. The text is what
     * the chat reads: the answer, or a short note that the model failed. Empty when this agent cannot answer aside.
     */
    default java.util.Optional<String> aside(String sessionKey, java.util.List<ChatMessage> history, String question, Interrupt interrupt) {
        return java.util.Optional.empty();
    }

    /** A short description for logs and operators (admin page, /status for admins); may name the model's endpoint. */
    String describe();

    /**
     * The model's name as any chat user may see it ({@code /status}), such as {@code llama3.1}: never a URL,
     * host or port. Agents that do not know it answer {@code unnamed}.
     */
    default String modelName() {
        return "unnamed";
    }

    /**
     * The model profiles turns may choose (the API's {@code model} field, {@code /model}), the default first;
     * empty when this agent has just one, unnamed model.
     */
    default java.util.List<ModelOption> models() {
        return java.util.List.of();
    }
}
