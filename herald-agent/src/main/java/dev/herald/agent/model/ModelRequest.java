package dev.herald.agent.model;

import dev.herald.core.agent.ChatMessage;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One chat-completion request.
 *
 * @param model       the model name; null means the client's configured model
 * @param messages    the conversation, oldest first; never empty
 * @param tools       tools offered to the model; empty when none
 * @param stream      whether partial output is streamed to the observer
 * @param temperature sampling temperature; null leaves the server's default
 * @param maxTokens   the answer's token limit; null leaves the server's default
 * @param parameters  more body fields by name ({@code top_p}, {@code response_format}, ...), each value JSON text, sent as
 *                    they are; they win over {@code temperature} and {@code maxTokens}; never {@code model},
 *                    {@code messages}, {@code tools} or the stream fields
 * @param reasoningEffort {@code low}, {@code medium} or {@code high}, sent as {@code reasoning_effort} only to a model whose
 *                    settings list it ({@link ModelSettings#reasoningEfforts()}); null for none. A {@code reasoning_effort}
 *                    parameter wins over it
 */
public record ModelRequest(
        String model, List<ChatMessage> messages, List<ToolSpec> tools, boolean stream, Double temperature, Integer maxTokens,
        Map<String, String> parameters, String reasoningEffort) {
    /** Body fields a parameter may not replace: the request's own structure. */
    public static final java.util.Set<String> RESERVED = java.util.Set.of("model", "messages", "tools", "stream", "stream_options");

    public ModelRequest {
        parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
        for (String name : parameters.keySet()) {
            if (RESERVED.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is part of the request itself, not a parameter");
            }
        }
        Objects.requireNonNull(messages, "messages");
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a model request needs at least one message");
        }
        messages = List.copyOf(messages);
        tools = tools == null ? List.of() : List.copyOf(tools);
        if (temperature != null && (temperature.isNaN() || temperature < 0)) {
            throw new IllegalArgumentException("temperature must be 0 or more (got " + temperature + ")");
        }
        if (maxTokens != null && maxTokens <= 0) {
            throw new IllegalArgumentException("max tokens must be positive (got " + maxTokens + ")");
        }
    }

    public ModelRequest(String model, List<ChatMessage> messages, List<ToolSpec> tools, boolean stream, Double temperature,
            Integer maxTokens) {
        this(model, messages, tools, stream, temperature, maxTokens, Map.of());
    }

    /** A request without a reasoning effort. */
    public ModelRequest(String model, List<ChatMessage> messages, List<ToolSpec> tools, boolean stream, Double temperature,
            Integer maxTokens, Map<String, String> parameters) {
        this(model, messages, tools, stream, temperature, maxTokens, parameters, null);
    }

    /** With {@code effort} ({@code low}, {@code medium}, {@code high}) as its reasoning effort; null for none. */
    public ModelRequest withReasoningEffort(String effort) {
        return new ModelRequest(model, messages, tools, stream, temperature, maxTokens, parameters, effort);
    }

    /** A streamed request for the client's configured model, without tools or sampling overrides. */
    public static ModelRequest streaming(List<ChatMessage> messages) {
        return new ModelRequest(null, messages, List.of(), true, null, null);
    }

    /** A non-streamed request for the client's configured model. */
    public static ModelRequest blocking(List<ChatMessage> messages) {
        return new ModelRequest(null, messages, List.of(), false, null, null);
    }

    public ModelRequest withModel(String name) {
        return new ModelRequest(name, messages, tools, stream, temperature, maxTokens, parameters, reasoningEffort);
    }

    public ModelRequest withTools(List<ToolSpec> specs) {
        return new ModelRequest(model, messages, specs, stream, temperature, maxTokens, parameters, reasoningEffort);
    }

    public ModelRequest withSampling(Double newTemperature, Integer newMaxTokens) {
        return new ModelRequest(model, messages, tools, stream, newTemperature, newMaxTokens, parameters, reasoningEffort);
    }

    /** With {@code more} body fields added (a later value for the same name wins). */
    public ModelRequest withParameters(Map<String, String> more) {
        Map<String, String> all = new java.util.LinkedHashMap<>(parameters);
        all.putAll(more);
        return new ModelRequest(model, messages, tools, stream, temperature, maxTokens, all, reasoningEffort);
    }
}
