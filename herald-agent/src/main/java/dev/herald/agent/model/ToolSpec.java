package dev.herald.agent.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Objects;

/**
 * A tool offered to the model, sent as an OpenAI {@code {"type":"function","function":{...}}} entry. Immutable; its
 * entry is encoded once, on first use, and spliced into every request that offers it ({@link #encoded()}), so a tool
 * set that does not change costs no encoding per turn.
 */
public final class ToolSpec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final String description;
    private final JsonNode parameters;
    private volatile byte[] encoded;
    private volatile String parametersJson;

    /**
     * @param name        the function name the model calls
     * @param description what the tool does, for the model; empty when none
     * @param parameters  the JSON schema of the arguments; an empty object schema when null (copied)
     */
    public ToolSpec(String name, String description, JsonNode parameters) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a tool needs a name");
        }
        this.name = name;
        this.description = description == null ? "" : description;
        this.parameters = parameters == null ? JSON.createObjectNode().put("type", "object").set("properties", JSON.createObjectNode())
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

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The parameter schema: a copy, so that the encoded entry always matches it. */
    public JsonNode parameters() {
        return parameters.deepCopy();
    }

    /** The parameter schema as JSON text (computed once). */
    public String parametersJson() {
        String json = parametersJson;
        if (json == null) {
            json = parameters.toString();
            parametersJson = json;
        }
        return json;
    }

    /** The request's {@code tools} entry for this tool, UTF-8 JSON (computed once; do not modify). */
    byte[] encoded() {
        byte[] bytes = encoded;
        if (bytes == null) {
            var entry = JSON.createObjectNode().put("type", "function");
            entry.putObject("function").put("name", name).put("description", description).set("parameters", parameters);
            try {
                bytes = JSON.writeValueAsBytes(entry);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("tool '" + name + "' cannot be encoded", e);
            }
            encoded = bytes;
        }
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolSpec other && name.equals(other.name) && description.equals(other.description)
                && parameters.equals(other.parameters);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, description, parameters);
    }

    @Override
    public String toString() {
        return "ToolSpec[name=" + name + ", description=" + description + ", parameters=" + parametersJson() + "]";
    }
}
