package dev.herald.core.transcript;

import java.util.Objects;

/**
 * One tool call requested by the model.
 *
 * @param id            the call id the tool result answers
 * @param name          the tool's name
 * @param argumentsJson the arguments exactly as the model produced them (may be malformed JSON)
 */
public record ToolCall(String id, String name, String argumentsJson) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        argumentsJson = argumentsJson == null ? "" : argumentsJson;
    }
}
