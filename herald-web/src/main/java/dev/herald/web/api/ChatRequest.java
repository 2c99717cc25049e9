package dev.herald.web.api;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ImagePart;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code POST /v1/chat/completions} body. Every field is either used or refused with a 400 naming it
 * ({@link RequestFields}): nothing a client sends is dropped without a word.
 *
 * @param model        the {@code model} field as sent, or null
 * @param stream       the client asked for server-sent events
 * @param includeUsage {@code stream_options.include_usage}: send a usage chunk before {@code [DONE]}
 * @param history      every message before the turn's input (system messages included); for a continuation
 *                     after client tool results, every message
 * @param userMessage  the text of the last user message; empty for a continuation
 * @param images       the images of the last user message ({@code image_url} parts, {@code data:} URLs only)
 * @param parameters   fields passed to the model as they are (JSON text by name)
 * @param tools        the client's own tools ({@code tools}), which the client runs
 */
record ChatRequest(String model, boolean stream, boolean includeUsage, List<ChatMessage> history, String userMessage,
        List<ImagePart> images, Map<String, String> parameters, List<TurnOptions.ClientTool> tools) {

    ChatRequest {
        history = List.copyOf(history);
        images = List.copyOf(images);
        parameters = Map.copyOf(parameters);
        tools = List.copyOf(tools);
    }

    /** True when the request continues after results of the client's own tools: no new user message. */
    boolean continuation() {
        return userMessage.isEmpty();
    }

    /** The options the turn runs with, for the profile {@code profile} (null = the session's or the default). */
    TurnOptions options(String profile) {
        return new TurnOptions(profile, parameters, tools, images);
    }

    /** Parses and validates a body; every problem is a 400 naming the field. */
    static ChatRequest parse(byte[] body, long maxImageBytes) {
        JsonNode root = readJson(body);
        if (root == null || !root.isObject()) {
            throw ApiError.badRequest("the request body must be a JSON object with a 'messages' array", null);
        }
        RequestFields fields = RequestFields.chatCompletions(root);
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
            ChatMessage m = message(messages.get(i), i, maxImageBytes);
            if (m.role() == Role.USER) {
                lastUser = i;
            }
            parsed.add(m);
        }
        if (lastUser < 0) {
            throw ApiError.badRequest("'messages' has no user message: the last message with role 'user' is the turn's input", "messages");
        }
        if (lastUser < parsed.size() - 1) {
            requireToolContinuation(parsed, lastUser, fields.tools());
            return new ChatRequest(fields.model(), fields.stream(), fields.includeUsage(), parsed, "", List.of(), fields.parameters(),
                    fields.tools());
        }
        ChatMessage last = parsed.get(lastUser);
        String text = last.content() == null ? "" : last.content();
        if (text.isBlank() && !last.hasImages()) {
            throw ApiError.badRequest("the last user message (messages[" + lastUser + "]) is empty", "messages[" + lastUser + "].content");
        }
        return new ChatRequest(fields.model(), fields.stream(), fields.includeUsage(), parsed.subList(0, lastUser), text,
                last.images(), fields.parameters(), fields.tools());
    }

    /**
     * Messages after the last user message must be the client's tool round trip: assistant messages calling tools,
     * each call answered by a {@code tool} message, ending with a tool result. Anything else would be dropped, so
     * it is refused.
     */
    private static void requireToolContinuation(List<ChatMessage> parsed, int lastUser, List<TurnOptions.ClientTool> tools) {
        Set<String> open = new HashSet<>();
        for (int i = lastUser + 1; i < parsed.size(); i++) {
            ChatMessage m = parsed.get(i);
            String at = "messages[" + i + "]";
            if (m.role() == Role.ASSISTANT && m.hasToolCalls()) {
                m.toolCalls().forEach(c -> open.add(c.id()));
            } else if (m.role() == Role.TOOL) {
                if (!open.remove(m.toolCallId())) {
                    throw ApiError.badRequest(at + " answers tool call '" + shorten(m.toolCallId())
                            + "', which no earlier assistant message after the last user message made", at + ".tool_call_id");
                }
            } else {
                throw ApiError.badRequest(at + " (" + m.role().wire() + ") follows the last user message: a conversation must end with a "
                        + "user message, or with the results of the tools an assistant message called", at);
            }
        }
        if (parsed.getLast().role() != Role.TOOL) {
            throw ApiError.badRequest("the conversation ends with an assistant message that calls tools: send their results as "
                    + "'tool' messages", "messages[" + (parsed.size() - 1) + "]");
        }
        if (!open.isEmpty()) {
            throw ApiError.badRequest("tool call(s) " + open + " have no 'tool' message with their result", "messages");
        }
        if (tools.isEmpty()) {
            throw ApiError.badRequest("the conversation continues after tool results but the request offers no 'tools': send the same "
                    + "'tools' as the request that called them", "tools");
        }
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

    static ChatRequest parse(byte[] body) {
        return parse(body, ImagePart.DEFAULT_MAX_BYTES);
    }

    /** Reads a JSON body, every problem a 400 (for the other routes). */
    static JsonNode json(byte[] body) {
        return readJson(body);
    }

    private static ChatMessage message(JsonNode node, int i, long maxImageBytes) {
        String at = "messages[" + i + "]";
        if (node == null || !node.isObject()) {
            throw ApiError.badRequest(at + " must be an object with 'role' and 'content'", at);
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || !roleNode.isTextual()) {
            throw ApiError.badRequest(at + ".role is required (system, user, assistant or tool)", at + ".role");
        }
        String role = roleNode.asText();
        Content content = Content.of(node.get("content"), at, "user".equals(role), maxImageBytes);
        return switch (role) {
            case "system", "developer" -> ChatMessage.system(required(content.text(), at));
            case "user" -> ChatMessage.user(content.text() == null && content.images().isEmpty() ? required(null, at)
                    : content.text() == null ? "" : content.text(), content.images());
            case "assistant" -> ChatMessage.assistant(content.text(), toolCalls(node.get("tool_calls"), at));
            case "tool" -> ChatMessage.tool(requiredText(node, "tool_call_id", at), textOrNull(node.get("name")), required(content.text(), at));
            default -> throw ApiError.badRequest(
                    at + ".role '" + shorten(role) + "' is not supported (system, developer, user, assistant or tool)", at + ".role");
        };
    }

    /** A message's text and, for a user message, its images. */
    record Content(String text, List<ImagePart> images) {
        /** Content is a string, null, or an array of text parts and (user messages only) image parts. */
        static Content of(JsonNode node, String at, boolean imagesAllowed, long maxImageBytes) {
            if (node == null || node.isNull()) {
                return new Content(null, List.of());
            }
            if (node.isTextual()) {
                return new Content(node.asText(), List.of());
            }
            if (!node.isArray()) {
                throw ApiError.badRequest(at + ".content must be a string or an array of parts", at + ".content");
            }
            StringBuilder text = new StringBuilder();
            List<ImagePart> images = new ArrayList<>();
            for (int j = 0; j < node.size(); j++) {
                JsonNode part = node.get(j);
                String type = part == null ? null : textOrNull(part.get("type"));
                String partAt = at + ".content[" + j + "]";
                if ("text".equals(type) || "input_text".equals(type) || "output_text".equals(type)) {
                    text.append(part.path("text").asText(""));
                } else if (imagesAllowed && ("image_url".equals(type) || "input_image".equals(type))) {
                    JsonNode url = part.get("image_url");
                    images.add(DataUrls.image(url != null && url.isObject() ? url.get("url") : url, partAt + ".image_url", maxImageBytes));
                } else {
                    throw ApiError.badRequest(partAt + ": part type '" + shorten(String.valueOf(type)) + "' is not supported ("
                            + (imagesAllowed ? "text and image_url with a data: URL" : "text only in this role") + ")", at + ".content");
                }
            }
            return new Content(text.toString(), images);
        }
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

    static String textOrNull(JsonNode node) {
        return node == null || node.isNull() || !node.isValueNode() ? null : node.asText();
    }

    static String shorten(String s) {
        if (s == null) {
            return "";
        }
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }
}
