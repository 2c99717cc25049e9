package dev.herald.web.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.transcript.ToolCall;

/** The OpenAI chat-completions wire shapes Herald answers with, built as JSON bytes. */
final class OpenAiWire {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private OpenAiWire() {
    }

    /** {@code GET /v1/models}: the advertised model ids. */
    static byte[] models(java.util.List<String> modelIds, long created) {
        ObjectNode root = MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = root.putArray("data");
        for (String id : modelIds) {
            data.addObject().put("id", id).put("object", "model").put("created", created).put("owned_by", "herald");
        }
        return bytes(root);
    }

    /** A complete, non-streamed {@code chat.completion}; {@code usage} may be null. */
    static byte[] completion(String id, long created, String model, String text, String finishReason, Usage usage) {
        return completion(id, created, model, text, finishReason, usage, java.util.List.of());
    }

    /** A complete {@code chat.completion}, with calls of the client's tools when there are any. */
    static byte[] completion(String id, long created, String model, String text, String finishReason, Usage usage,
            java.util.List<ToolCall> toolCalls) {
        ObjectNode root = header(id, "chat.completion", created, model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (toolCalls.isEmpty() || text != null && !text.isEmpty()) {
            message.put("content", text);
        } else {
            message.putNull("content");
        }
        if (!toolCalls.isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (ToolCall call : toolCalls) {
                calls.addObject().put("id", call.id()).put("type", "function").putObject("function").put("name", call.name())
                        .put("arguments", call.argumentsJson() == null ? "{}" : call.argumentsJson());
            }
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        if (usage != null) {
            root.set("usage", usage(usage));
        }
        return bytes(root);
    }

    /**
     * One {@code chat.completion.chunk}: a content delta (null for none), the assistant role on the first
     * chunk, and a finish reason on the last.
     */
    static byte[] chunk(String id, long created, String model, String content, boolean withRole, String finishReason) {
        ObjectNode root = header(id, "chat.completion.chunk", created, model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        ObjectNode delta = choice.putObject("delta");
        if (withRole) {
            delta.put("role", "assistant");
        }
        if (content != null) {
            delta.put("content", content);
        }
        choice.putNull("logprobs");
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return bytes(root);
    }

    /** One chunk carrying the client tool calls of a streamed answer, whole (one per call index). */
    static byte[] toolCallsChunk(String id, long created, String model, java.util.List<ToolCall> toolCalls, boolean withRole) {
        ObjectNode root = header(id, "chat.completion.chunk", created, model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        ObjectNode delta = choice.putObject("delta");
        if (withRole) {
            delta.put("role", "assistant");
        }
        ArrayNode calls = delta.putArray("tool_calls");
        for (int i = 0; i < toolCalls.size(); i++) {
            ToolCall call = toolCalls.get(i);
            calls.addObject().put("index", i).put("id", call.id()).put("type", "function").putObject("function")
                    .put("name", call.name()).put("arguments", call.argumentsJson() == null ? "{}" : call.argumentsJson());
        }
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        return bytes(root);
    }

    /** The usage chunk sent before {@code [DONE]} when {@code stream_options.include_usage} is on: no choices. */
    static byte[] usageChunk(String id, long created, String model, Usage usage) {
        ObjectNode root = header(id, "chat.completion.chunk", created, model);
        root.putArray("choices");
        root.set("usage", usage(usage));
        return bytes(root);
    }

    /** {@code {"error":{"message","type","param","code"}}}. */
    static byte[] error(ApiError e) {
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", e.getMessage());
        error.put("type", e.type());
        if (e.param() == null) {
            error.putNull("param");
        } else {
            error.put("param", e.param());
        }
        if (e.code() == null) {
            error.putNull("code");
        } else {
            error.put("code", e.code());
        }
        return bytes(root);
    }

    private static ObjectNode header(String id, String object, long created, String model) {
        return MAPPER.createObjectNode().put("id", id).put("object", object).put("created", created).put("model", model);
    }

    static ObjectNode usage(Usage usage) {
        return MAPPER.createObjectNode()
                .put("prompt_tokens", usage.promptTokens())
                .put("completion_tokens", usage.completionTokens())
                .put("total_tokens", usage.totalTokens());
    }

    static byte[] bytes(ObjectNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            // a tree of strings and numbers always serialises; reaching here is a bug
            throw new IllegalStateException("api_server - cannot serialise a response", e);
        }
    }
}
