package dev.herald.web.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code POST /v1/chat/completions} body, reduced to what Herald uses. Sampling parameters,
 * {@code model}, {@code tools} and messages after the last user message are ignored: Herald's agent has
 * its own model settings and tools.
 *
 * @param stream       the client asked for server-sent events
 * @param includeUsage {@code stream_options.include_usage}: send a usage chunk before {@code [DONE]}
 * @param history      every message before the last user message (system messages included)
 * @param userMessage  the text of the last user message; never blank
 */
record ChatRequest(boolean stream, boolean includeUsage, List<ChatMessage> history, String userMessage) {

    ChatRequest {
        history = List.copyOf(history);
    }

    /** Parses and validates a body; every problem is a 400 naming the field. */
    static ChatRequest parse(byte[] body) {
        JsonNode root = readJson(body);
        if (root == null || !root.isObject()) {
            throw ApiError.badRequest("the request body must be a JSON object with a 'messages' array", null);
        }
        boolean stream = optionalBoolean(root, "stream");
        JsonNode options = root.get("stream_options");
        boolean includeUsage = options != null && options.isObject() && optionalBoolean(options, "include_usage");
        JsonNode messages = root.get("messages");
        if (messages == null || messages.isNull()) {
            throw ApiError.badRequest("'messages' is required: send at least one {\"role\":\"user\",\"content\":\"...\"}", "messages");
        }
        if (!messages.isArray()) {
            throw ApiError.badRequest("'messages' must be an array, was " + messages.getNodeType().name().toLowerCase(), "messages");
        }
        if (messages.isEmpty()) {
            throw ApiError.badRequest("'messages' must not be empty: send at least one user message", "messages");
        }
        List<ChatMessage> parsed = new ArrayList<>(messages.size());
        int lastUser = -1;
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = message(messages.get(i), i);
            if (m.role() == Role.USER) {
                lastUser = i;
            }
            parsed.add(m);
        }
        if (lastUser < 0) {
            throw ApiError.badRequest("'messages' has no user message: the last message with role 'user' is the turn's input", "messages");
        }
        String text = parsed.get(lastUser).content();
        if (text == null || text.isBlank()) {
            throw ApiError.badRequest("the last user message (messages[" + lastUser + "]) is empty", "messages[" + lastUser + "].content");
        }
        return new ChatRequest(stream, includeUsage, parsed.subList(0, lastUser), text);
    }

    private static JsonNode readJson(byte[] body) {
        if (body.length == 0) {
            throw ApiError.badRequest("the request body is empty: send a JSON object with a 'messages' array", null);
        }
        try {
            return OpenAiWire.MAPPER.readTree(body);
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw ApiError.badRequest("the request body is not valid JSON" + where + ": " + shorten(e.getOriginalMessage()), null);
        } catch (IOException e) {
            throw ApiError.badRequest("the request body could not be read as JSON: " + shorten(e.getMessage()), null);
        }
    }

    private static ChatMessage message(JsonNode node, int i) {
        String at = "messages[" + i + "]";
        if (node == null || !node.isObject()) {
            throw ApiError.badRequest(at + " must be an object with 'role' and 'content'", at);
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || !roleNode.isTextual()) {
            throw ApiError.badRequest(at + ".role is required (system, user, assistant or tool)", at + ".role");
        }
        String content = content(node.get("content"), at);
        return switch (roleNode.asText()) {
            case "system", "developer" -> ChatMessage.system(required(content, at));
            case "user" -> ChatMessage.user(required(content, at));
            case "assistant" -> ChatMessage.assistant(content, toolCalls(node.get("tool_calls"), at));
            case "tool" -> ChatMessage.tool(requiredText(node, "tool_call_id", at), textOrNull(node.get("name")), required(content, at));
            default -> throw ApiError.badRequest(
                    at + ".role '" + shorten(roleNode.asText()) + "' is not supported (system, developer, user, assistant or tool)",
                    at + ".role");
        };
    }

    /** Content is a string, null, or an array of parts of which only text parts are supported. */
    private static String content(JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at + ".content must be a string or an array of text parts", at + ".content");
        }
        StringBuilder text = new StringBuilder();
        for (int j = 0; j < node.size(); j++) {
            JsonNode part = node.get(j);
            String type = part == null ? null : textOrNull(part.get("type"));
            if (!"text".equals(type) && !"input_text".equals(type)) {
                throw ApiError.badRequest(at + ".content[" + j + "]: part type '" + shorten(String.valueOf(type))
                        + "' is not supported (text only)", at + ".content");
            }
            text.append(part.path("text").asText(""));
        }
        return text.toString();
    }

    private static List<ToolCall> toolCalls(JsonNode node, String at) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw ApiError.badRequest(at + ".tool_calls must be an array", at + ".tool_calls");
        }
        List<ToolCall> calls = new ArrayList<>(node.size());
        for (int j = 0; j < node.size(); j++) {
            String callAt = at + ".tool_calls[" + j + "]";
            JsonNode call = node.get(j);
            JsonNode function = call.path("function");
            String id = textOrNull(call.get("id"));
            String name = textOrNull(function.get("name"));
            if (id == null || name == null) {
                throw ApiError.badRequest(callAt + " needs 'id' and 'function.name'", callAt);
            }
            calls.add(new ToolCall(id, name, textOrNull(function.get("arguments"))));
        }
        return calls;
    }

    private static boolean optionalBoolean(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw ApiError.badRequest("'" + field + "' must be true or false", field);
        }
        return node.asBoolean();
    }

    private static String required(String content, String at) {
        if (content == null) {
            throw ApiError.badRequest(at + ".content is required", at + ".content");
        }
        return content;
    }

    private static String requiredText(JsonNode node, String field, String at) {
        String value = textOrNull(node.get(field));
        if (value == null || value.isBlank()) {
            throw ApiError.badRequest(at + "." + field + " is required for role 'tool'", at + "." + field);
        }
        return value;
    }

    private static String textOrNull(JsonNode node) {
        return node == null || node.isNull() || !node.isValueNode() ? null : node.asText();
    }

    private static String shorten(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }
}
