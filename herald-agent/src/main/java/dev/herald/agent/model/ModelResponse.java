package dev.herald.agent.model;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.ToolCall;
import java.util.List;

/**
 * A model's whole answer to one request.
 *
 * @param content      the visible answer; empty when the model only called tools
 * @param reasoning    the reasoning the server exposed; empty when none
 * @param toolCalls    tool calls in the order the model made them; ids are always set (generated as
 *                     {@code call_<n>} when the server sent none); arguments are kept exactly as sent
 * @param finishReason the server's finish reason ({@code stop}, {@code length}, {@code tool_calls}...); null when it sent none.
 *                     Some servers say {@code stop} even with tool calls, so check {@link #hasToolCalls()}, not this.
 * @param usage        token counts; null when the server reported none
 */
public record ModelResponse(String content, String reasoning, List<ToolCall> toolCalls, String finishReason, Usage usage) {
    public ModelResponse {
        content = content == null ? "" : content;
        reasoning = reasoning == null ? "" : reasoning;
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    public boolean hasToolCalls() {
        return !toolCalls.isEmpty();
    }

    /** The answer as an assistant message for the transcript (content null when there is only a tool call). */
    public ChatMessage toMessage() {
        return ChatMessage.assistant(content.isEmpty() && hasToolCalls() ? null : content, toolCalls);
    }
}
