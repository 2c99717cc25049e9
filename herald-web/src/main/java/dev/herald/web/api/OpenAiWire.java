package dev.herald.web.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The OpenAI chat-completions wire shapes Herald answers with, built as JSON bytes. */
final class OpenAiWire {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private OpenAiWire() {
    }

    /** {@code GET /v1/models}: a list with the one advertised model. */
    static byte[] models(String modelId, long created) {
        ObjectNode root = MAPPER.createObjectNode().put("object", "list");
        root.putArray("data").addObject()
                .put("id", modelId)
                .put("object", "model")
                .put("created", created)
                .put("owned_by", "herald");
        return bytes(root);
    }

    /** A complete, non-streamed {@code chat.completion}; {@code usage} may be null (session mode has none). */
    static byte[] completion(String id, long created, String model, String text, String finishReason, Usage usage) {
        ObjectNode root = header(id, "chat.completion", created, model);
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", text);
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

    private static ObjectNode usage(Usage usage) {
        return MAPPER.createObjectNode()
                .put("prompt_tokens", usage.promptTokens())
                .put("completion_tokens", usage.completionTokens())
                .put("total_tokens", usage.totalTokens());
    }

    private static byte[] bytes(ObjectNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            // a tree of strings and numbers always serialises; reaching here is a bug
            throw new IllegalStateException("api_server - cannot serialise a response", e);
        }
    }
}
