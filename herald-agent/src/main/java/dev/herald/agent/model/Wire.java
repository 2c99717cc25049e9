package dev.herald.agent.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.transcript.ToolCall;

/** The OpenAI chat-completions JSON: the request body out, a whole completion, usage and error bodies in. */
final class Wire {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final int DETAIL_LIMIT = 300;

    private Wire() {
    }

    static byte[] encode(ModelRequest request, String defaultModel) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", request.model() == null ? defaultModel : request.model());
        ArrayNode messages = body.putArray("messages");
        for (ChatMessage m : request.messages()) {
            messages.add(message(m));
        }
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec spec : request.tools()) {
                ObjectNode function = tools.addObject().put("type", "function").putObject("function");
                function.put("name", spec.name()).put("description", spec.description()).set("parameters", spec.parameters());
            }
        }
        body.put("stream", request.stream());
        if (request.stream()) {
            body.putObject("stream_options").put("include_usage", true);
        }
        if (request.temperature() != null) {
            body.put("temperature", request.temperature());
        }
        if (request.maxTokens() != null) {
            body.put("max_tokens", request.maxTokens());
        }
        request.parameters().forEach((name, json) -> body.set(name, parameter(name, json)));
        try {
            return JSON.writeValueAsBytes(body);
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

    private static ObjectNode message(ChatMessage m) {
        ObjectNode node = JSON.createObjectNode().put("role", m.role().wire());
        if (m.hasImages()) {
            ArrayNode parts = node.putArray("content");
            if (m.content() != null && !m.content().isEmpty()) {
                parts.addObject().put("type", "text").put("text", m.content());
            }
            for (ImagePart image : m.images()) {
                parts.addObject().put("type", "image_url").putObject("image_url").put("url", image.dataUrl());
            }
        } else {
            node.put("content", m.content());
        }
        if (m.hasToolCalls()) {
            ArrayNode calls = node.putArray("tool_calls");
            for (ToolCall call : m.toolCalls()) {
                calls.addObject().put("id", call.id()).put("type", "function")
                        .putObject("function").put("name", call.name()).put("arguments", call.argumentsJson());
            }
        }
        if (m.toolCallId() != null) {
            node.put("tool_call_id", m.toolCallId());
        }
        if (m.name() != null) {
            node.put("name", m.name());
        }
        return node;
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
