package dev.herald.core.agent;

import java.util.List;
import java.util.Objects;

/**
 * Everything an agent needs for one turn.
 *
 * @param sessionId   the transcript session the turn belongs to (tools key their per-session state on it)
 * @param sessionKey  the lane's key text, or null for stateless turns
 * @param history     the agent history before this turn, oldest first
 * @param userMessage the message for the model, notes already injected; never blank
 * @param interactive a person is there to answer (false for webhooks and the API server)
 * @param platformId  the id of the platform the turn serves (tool sets and approvals differ per platform)
 */
public record TurnRequest(
        String sessionId, String sessionKey, List<ChatMessage> history, String userMessage, boolean interactive, String platformId) {
    public TurnRequest {
        Objects.requireNonNull(sessionId, "sessionId");
        history = List.copyOf(history);
        Objects.requireNonNull(userMessage, "userMessage");
    }
}
