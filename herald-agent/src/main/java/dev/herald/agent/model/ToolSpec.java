package dev.herald.agent.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;

/**
 * A tool offered to the model, sent as an OpenAI {@code {"type":"function","function":{...}}} entry.
 *
 * @param name        the function name the model calls
 * @param description what the tool does, for the model; empty when none
 * @param parameters  the JSON schema of the arguments; an empty object schema when null
 */
public record ToolSpec(String name, String description, JsonNode parameters) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a tool needs a name");
        }
        description = description == null ? "" : description;
        parameters = parameters == null ? JSON.createObjectNode().put("type", "object").set("properties", JSON.createObjectNode())
                : parameters.deepCopy();
    }

    /** A tool whose parameter schema is given as JSON text. */
    public static ToolSpec of(String name, String description, String parametersJson) {
        try {
            return new ToolSpec(name, description, parametersJson == null ? null : JSON.readTree(parametersJson));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("tool '" + name + "' has a malformed parameter schema: " + e.getOriginalMessage(), e);
        }
    }
}
