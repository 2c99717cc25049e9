package dev.herald.web.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code POST /v1/responses} body, the text-in, text-out subset: {@code input} (a string, or messages whose
 * content is text and, for the user, {@code input_image} data URLs), {@code instructions}, {@code stream}, the
 * sampling fields and {@code text.format}. It becomes the same {@link ChatRequest} a chat completion is, so both
 * routes run turns alike. What the subset leaves out ({@code previous_response_id}, stored responses, background runs,
 * ...) is a 400 naming the field; {@code tools} (tools the client runs) is a 400 that points to {@code /v1/chat/completions},
 * which runs them.
 *
 * @param chat         the request as a chat completion
 * @param instructions {@code instructions}, echoed in the response; null when absent
 */
record ResponsesRequest(ChatRequest chat, String instructions) {
    private static final List<String> PASSED = List.of("temperature", "top_p", "user");

    static ResponsesRequest parse(byte[] body, long maxImageBytes) {
        JsonNode root = ChatRequest.json(body);
        if (root == null || !root.isObject()) {
            throw ApiError.badRequest("the request body must be a JSON object with an 'input'", null);
        }
        String model = null;
        String instructions = null;
        boolean stream = false;
        JsonNode input = null;
        Map<String, String> parameters = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (value == null || value.isNull()) {
                continue;
            }
            switch (name) {
                case "model" -> model = RequestFields.text(value, name);
                case "input" -> input = value;
                case "instructions" -> instructions = RequestFields.text(value, name);
                case "stream" -> stream = RequestFields.bool(value, name);
                case "max_output_tokens" -> {
                    RequestFields.check(name, value);
                    parameters.put("max_tokens", value.toString());
                }
                case "text" -> textFormat(value).ifPresent(format -> parameters.put("response_format", format));
                case "store" -> RequestFields.require(value.isBoolean() && !value.asBoolean(), name,
                        "'store': true is not supported: Herald keeps no responses to fetch later; send store: false, or use a durable "
                                + "session (X-Herald-Session-Id)");
                case "tools", "tool_choice", "parallel_tool_calls" -> throw ApiError.badRequest("'" + name + "': tools the client "
                        + "runs are not supported on /v1/responses; send the request to /v1/chat/completions, which supports them (the "
                        + "Vercel AI SDK: createOpenAI({baseURL}).chat('herald'), or @ai-sdk/openai-compatible; the openai clients: "
                        + "chat.completions.create)", name);
                case "previous_response_id" -> throw ApiError.badRequest("'previous_response_id' is not supported: send the "
                        + "conversation in 'input', or use a durable session (X-Herald-Session-Id)", name);
                default -> {
                    if (!PASSED.contains(name)) {
                        throw ApiError.badRequest("'" + ChatRequest.shorten(name) + "' is not supported by Herald's /v1/responses "
                                + "(a text-in, text-out subset: model, input, instructions, stream, temperature, top_p, "
                                + "max_output_tokens, text.format, user, store: false); remove it", name);
                    }
                    RequestFields.check(name, value);
                    parameters.put(name, value.toString());
                }
            }
        }
        List<ChatMessage> messages = new ArrayList<>();
        if (instructions != null) {
            messages.add(ChatMessage.system(instructions));
        }
        messages.addAll(input(input, maxImageBytes));
        int last = messages.size() - 1;
        if (last < 0 || messages.get(last).role() != Role.USER) {
            throw ApiError.badRequest("'input' must end with a user message (a string, or {\"role\":\"user\",\"content\":...})", "input");
        }
        ChatMessage user = messages.get(last);
        String text = user.content() == null ? "" : user.content();
        if (text.isBlank() && !user.hasImages()) {
            throw ApiError.badRequest("the last user input is empty", "input");
        }
        ChatRequest chat = new ChatRequest(model, stream, false, messages.subList(0, last), text, user.images(), parameters, List.of());
        return new ResponsesRequest(chat, instructions);
    }

    private static List<ChatMessage> input(JsonNode input, long maxImageBytes) {
        if (input == null) {
            throw ApiError.badRequest("'input' is required: a string, or an array of messages", "input");
        }
        if (input.isTextual()) {
            return List.of(ChatMessage.user(input.asText()));
        }
        if (!input.isArray() || input.isEmpty()) {
            throw ApiError.badRequest("'input' must be a string or a non-empty array of messages", "input");
        }
        List<ChatMessage> out = new ArrayList<>();
        for (int i = 0; i < input.size(); i++) {
            JsonNode item = input.get(i);
            String at = "input[" + i + "]";
            String type = item.path("type").asText("message");
            if (!type.equals("message")) {
                throw ApiError.badRequest(at + ": item type '" + ChatRequest.shorten(type) + "' is not supported (messages only)", at);
            }
            String role = item.path("role").asText("");
            ChatRequest.Content content = ChatRequest.Content.of(item.get("content"), at, role.equals("user"), maxImageBytes);
            String text = content.text() == null ? "" : content.text();
            out.add(switch (role) {
                case "user" -> ChatMessage.user(text, content.images());
                case "assistant" -> ChatMessage.assistant(text);
                case "system", "developer" -> ChatMessage.system(text);
                default -> throw ApiError.badRequest(at + ".role must be user, assistant, system or developer", at + ".role");
            });
        }
        return out;
    }

    /** {@code text.format} as a chat {@code response_format}; empty for plain text. */
    private static java.util.Optional<String> textFormat(JsonNode text) {
        RequestFields.require(text.isObject(), "text", "'text' must be an object such as {\"format\": {\"type\": \"text\"}}");
        for (Map.Entry<String, JsonNode> e : text.properties()) {
            if (!e.getKey().equals("format")) {
                throw ApiError.badRequest("'text." + ChatRequest.shorten(e.getKey()) + "' is not supported (only text.format)",
                        "text." + e.getKey());
            }
        }
        JsonNode format = text.path("format");
        String type = format.path("type").asText("text");
        switch (type) {
            case "text" -> {
                return java.util.Optional.empty();
            }
            case "json_object" -> {
                return java.util.Optional.of("{\"type\":\"json_object\"}");
            }
            case "json_schema" -> {
                ObjectNode schema = OpenAiWire.MAPPER.createObjectNode();
                schema.put("name", format.path("name").asText("response"));
                RequestFields.require(format.path("schema").isObject(), "text.format.schema", "'text.format' of type json_schema needs a 'schema'");
                schema.set("schema", format.get("schema"));
                if (format.has("strict")) {
                    schema.set("strict", format.get("strict"));
                }
                ObjectNode rf = OpenAiWire.MAPPER.createObjectNode().put("type", "json_schema");
                rf.set("json_schema", schema);
                return java.util.Optional.of(rf.toString());
            }
            default -> throw ApiError.badRequest("'text.format.type' must be text, json_object or json_schema", "text.format.type");
        }
    }
}
