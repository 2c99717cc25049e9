package dev.herald.agent.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.transcript.ToolCall;

/** The OpenAI chat-completions JSON: the request body out, a whole completion, usage and error bodies in. */
final class Wire {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final int DETAIL_LIMIT = 300;

    private Wire() {
    }

    /** Encodings of the messages sent lately, shared by every request ({@link EncodedMessages}). */
    private static final EncodedMessages MESSAGES = new EncodedMessages();
    private static final byte[] TRUE = bytes("true");
    private static final byte[] FALSE = bytes("false");

    /**
     * The request body, written without a tree: each message's encoding comes from {@link EncodedMessages} and each
     * tool's from its {@link ToolSpec}, spliced between the few fields written here. A parameter replaces
     * {@code temperature} or {@code max_tokens} in place; the others follow in their order.
     */
    static Body encode(ModelRequest request, String defaultModel) {
        Body.Builder out = new Body.Builder();
        out.raw(bytes("{\"model\":")).raw(json(request.model() == null ? defaultModel : request.model()));
        out.raw(bytes(",\"messages\":["));
        boolean first = true;
        for (ChatMessage m : request.messages()) {
            if (!first) {
                out.comma();
            }
            out.splice(MESSAGES.get(m, Wire::message));
            first = false;
        }
        out.raw(bytes("]"));
        if (!request.tools().isEmpty()) {
            out.raw(bytes(",\"tools\":["));
            first = true;
            for (ToolSpec spec : request.tools()) {
                if (!first) {
                    out.comma();
                }
                out.splice(spec.encoded());
                first = false;
            }
            out.raw(bytes("]"));
        }
        out.raw(bytes(",\"stream\":")).raw(request.stream() ? TRUE : FALSE);
        if (request.stream()) {
            out.raw(bytes(",\"stream_options\":{\"include_usage\":true}"));
        }
        java.util.Map<String, byte[]> parameters = new java.util.LinkedHashMap<>();
        request.parameters().forEach((name, text) -> parameters.put(name, json(parameter(name, text))));
        byte[] temperature = parameters.containsKey("temperature") ? parameters.remove("temperature")
                : request.temperature() == null ? null : json(request.temperature());
        field(out, "temperature", temperature);
        byte[] maxTokens = parameters.containsKey("max_tokens") ? parameters.remove("max_tokens")
                : request.maxTokens() == null ? null : json(request.maxTokens());
        field(out, "max_tokens", maxTokens);
        if (request.reasoningEffort() != null && !parameters.containsKey("reasoning_effort")) {
            field(out, "reasoning_effort", json(request.reasoningEffort()));
        }
        parameters.forEach((name, value) -> field(out, name, value));
        return out.raw(bytes("}")).build();
    }

    private static void field(Body.Builder out, String name, byte[] value) {
        if (value != null) {
            out.comma().raw(json(name)).raw(bytes(":")).raw(value);
        }
    }

    private static byte[] bytes(String ascii) {
        return ascii.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a model request", e);
        }
    }

    private static JsonNode parameter(String name, String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("model parameter '" + name + "' is not JSON", e);
        }
    }

    /** One message of the request, UTF-8 JSON. */
    static byte[] message(ChatMessage m) {
        ByteArrayBuilder buffer = new ByteArrayBuilder(64 + 2 * (m.content() == null ? 0 : m.content().length()));
        try (JsonGenerator g = JSON.getFactory().createGenerator(buffer)) {
            g.writeStartObject();
            g.writeStringField("role", m.role().wire());
            if (m.hasImages()) {
                g.writeArrayFieldStart("content");
                if (m.content() != null && !m.content().isEmpty()) {
                    g.writeStartObject();
                    g.writeStringField("type", "text");
                    g.writeStringField("text", m.content());
                    g.writeEndObject();
                }
                for (ImagePart image : m.images()) {
                    g.writeStartObject();
                    g.writeStringField("type", "image_url");
                    g.writeObjectFieldStart("image_url");
                    g.writeStringField("url", image.dataUrl());
                    g.writeEndObject();
                    g.writeEndObject();
                }
                g.writeEndArray();
            } else {
                g.writeStringField("content", m.content());
            }
            if (m.hasToolCalls()) {
                g.writeArrayFieldStart("tool_calls");
                for (ToolCall call : m.toolCalls()) {
                    g.writeStartObject();
                    g.writeStringField("id", call.id());
                    g.writeStringField("type", "function");
                    g.writeObjectFieldStart("function");
                    g.writeStringField("name", call.name());
                    g.writeStringField("arguments", call.argumentsJson());
                    g.writeEndObject();
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (m.toolCallId() != null) {
                g.writeStringField("tool_call_id", m.toolCallId());
            }
            if (m.name() != null) {
                g.writeStringField("name", m.name());
            }
            g.writeEndObject();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot encode a model request message", e);
        }
        return buffer.toByteArray();
    }

    /** A non-streamed {@code chat.completion}; null when the document has no choices array. */
    static ModelResponse decodeCompletion(JsonNode body) {
        JsonNode choices = body.get("choices");
        if (choices == null || !choices.isArray()) {
            return null;
        }
        JsonNode choice = choices.isEmpty() ? JSON.createObjectNode() : choices.get(0);
        JsonNode message = choice.path("message");
        ToolCallAssembler calls = new ToolCallAssembler();
        JsonNode toolCalls = message.get("tool_calls");
        if (toolCalls != null && toolCalls.isArray()) {
            toolCalls.forEach(calls::acceptWhole);
        }
        String reasoning = text(message.get("reasoning_content"));
        return new ModelResponse(text(message.get("content")), reasoning != null ? reasoning : text(message.get("reasoning")),
                calls.calls(), text(choice.get("finish_reason")), usage(body.get("usage")));
    }

    /** Usage from {@code prompt_tokens}/{@code completion_tokens} (or {@code input_tokens}/{@code output_tokens}); null when absent. */
    static Usage usage(JsonNode node) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode in = node.has("prompt_tokens") ? node.get("prompt_tokens") : node.get("input_tokens");
        JsonNode out = node.has("completion_tokens") ? node.get("completion_tokens") : node.get("output_tokens");
        if ((in == null || !in.isNumber()) && (out == null || !out.isNumber())) {
            return null;
        }
        return new Usage(Math.max(0, in == null ? 0 : in.asLong()), Math.max(0, out == null ? 0 : out.asLong()));
    }

    /**
     * Text of a content-like field: a string, an array of {@code {"type":"text","text":...}} parts, or
     * null when absent or JSON null. Other values are kept as their JSON text.
     */
    static String text(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isArray()) {
            StringBuilder joined = new StringBuilder();
            for (JsonNode part : node) {
                joined.append(part.isTextual() ? part.asText() : part.path("text").asText(""));
            }
            return joined.toString();
        }
        return node.toString();
    }

    /** The readable part of an error body: {@code error.message}, {@code error} text, {@code message}, or the start of the body. */
    static String errorDetail(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String detail;
        try {
            JsonNode node = JSON.readTree(body);
            JsonNode error = node.get("error");
            if (error != null && error.isObject()) {
                detail = error.path("message").asText(error.toString());
            } else if (error != null && error.isTextual()) {
                detail = error.asText();
            } else if (node.hasNonNull("message")) {
                detail = node.get("message").asText();
            } else if (node.hasNonNull("detail")) {
                detail = text(node.get("detail"));
            } else {
                detail = body;
            }
        } catch (JsonProcessingException e) {
            detail = body.replaceAll("<[^>]*>", " ");
        }
        return clip(detail.replaceAll("\\s+", " ").strip());
    }

    /** The {@code error.code} of an OpenAI-shaped error body, or "". */
    static String errorCode(String body) {
        try {
            return body == null || body.isBlank() ? "" : JSON.readTree(body).path("error").path("code").asText("");
        } catch (JsonProcessingException e) {
            return "";
        }
    }

    static String clip(String text) {
        return text.length() <= DETAIL_LIMIT ? text : text.substring(0, DETAIL_LIMIT) + "…";
    }
}
