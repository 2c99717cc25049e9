package dev.herald.core.agent;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.transcript.Role;
import java.util.List;
import java.util.Objects;

/**
 * Everything an agent needs for one turn.
 *
 * @param sessionId   the transcript session the turn belongs to (tools key their per-session state on it)
 * @param sessionKey  the lane's key text, or null for stateless turns
 * @param history     the agent history before this turn, oldest first
 * @param userMessage the message for the model, notes already injected; blank only when it carried attachments
 * @param interactive a person is there to answer (false for webhooks and the API server)
 * @param platformId  the id of the platform the turn serves (tool sets and approvals differ per platform)
 * @param options     what the caller asked for beyond the message (a model profile, parameters, its own tools);
 *                    {@link TurnOptions#NONE} for most turns
 * @param attachments the files the user's message carried (the message may then be empty); empty when none
 * @param user        who the turn is for, as {@code <platform>:<user id>} (the sender of its message; whose long-term memory
 *                    it reads and writes), or null when unknown (a stateless call)
 */
public record TurnRequest(
        String sessionId, String sessionKey, List<ChatMessage> history, String userMessage, boolean interactive, String platformId,
        TurnOptions options, List<MessageEvent.MediaRef> attachments, String user) {
    public TurnRequest {
        Objects.requireNonNull(sessionId, "sessionId");
        history = List.copyOf(history);
        Objects.requireNonNull(userMessage, "userMessage");
        options = options == null ? TurnOptions.NONE : options;
        attachments = attachments == null ? List.of() : List.copyOf(attachments);
    }

    /** A request for no known user. */
    public TurnRequest(String sessionId, String sessionKey, List<ChatMessage> history, String userMessage, boolean interactive,
            String platformId, TurnOptions options, List<MessageEvent.MediaRef> attachments) {
        this(sessionId, sessionKey, history, userMessage, interactive, platformId, options, attachments, null);
    }

    /** A request whose message carried no attachments. */
    public TurnRequest(String sessionId, String sessionKey, List<ChatMessage> history, String userMessage, boolean interactive,
            String platformId, TurnOptions options) {
        this(sessionId, sessionKey, history, userMessage, interactive, platformId, options, List.of());
    }

    /** A request without options. */
    public TurnRequest(String sessionId, String sessionKey, List<ChatMessage> history, String userMessage, boolean interactive,
            String platformId) {
        this(sessionId, sessionKey, history, userMessage, interactive, platformId, TurnOptions.NONE);
    }

    /**
     * True when this turn continues after tool results the caller supplied (its own tools): the history ends with
     * them and there is no new user message.
     */
    public boolean continuesAfterToolResults() {
        return userMessage.isEmpty() && attachments.isEmpty() && !history.isEmpty() && history.getLast().role() == Role.TOOL;
    }
}
