package dev.herald.web.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.TurnOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The top-level fields of an OpenAI request, each honoured or refused. Herald's own fields ({@code model},
 * {@code messages}, {@code stream}, {@code stream_options}, {@code tools}) it reads itself; the model's parameters
 * ({@code temperature}, {@code response_format}, ...) are checked for their type and range and passed to the model
 * as they are; a field that asks for what Herald cannot give ({@code n > 1}, {@code logprobs}, audio, stored
 * completions) and any field it does not know is a 400 naming it. A JSON {@code null} counts as absent.
 *
 * @param model        {@code model}, or null
 * @param stream       {@code stream}
 * @param includeUsage {@code stream_options.include_usage}
 * @param parameters   the model parameters, JSON text by name
 * @param tools        the client's tools
 */
record RequestFields(String model, boolean stream, boolean includeUsage, Map<String, String> parameters,
        List<TurnOptions.ClientTool> tools) {
    private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** Fields Herald reads itself, besides the parameters. */
    private static final Set<String> OWN = Set.of("model", "messages", "stream", "stream_options", "tools", "n", "logprobs",
            "top_logprobs", "store", "modalities");
    /** Parameters passed to the model, each with its check. */
    private static final List<String> PASSED = List.of("temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty",
            "frequency_penalty", "seed", "stop", "response_format", "tool_choice", "parallel_tool_calls", "logit_bias", "user",
            "reasoning_effort");

    static RequestFields chatCompletions(JsonNode root) {
        String model = null;
        boolean stream = false;
        boolean includeUsage = false;
        Map<String, String> parameters = new LinkedHashMap<>();
        List<TurnOptions.ClientTool> tools = List.of();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (value == null || value.isNull()) {
                continue;
            }
            switch (name) {
                case "messages" -> {
                }
                case "model" -> model = text(value, "model");
                case "stream" -> stream = bool(value, "stream");
                case "stream_options" -> includeUsage = streamOptions(value);
                case "tools" -> tools = tools(value);
                case "n" -> require(value.canConvertToInt() && value.isIntegralNumber() && value.asInt() == 1, "n",
                        "'n' must be 1: Herald runs one agent turn per request and returns one choice; send the request n times instead");
                case "logprobs" -> require(value.isBoolean() && !value.asBoolean(), "logprobs",
                        "'logprobs' is not supported: an agent's answer comes from several model calls; remove it");
                case "top_logprobs" -> throw ApiError.badRequest("'top_logprobs' is not supported (no logprobs); remove it", name);
                case "store" -> require(value.isBoolean() && !value.asBoolean(), "store",
                        "'store': true is not supported: Herald keeps durable sessions instead (X-Herald-Session-Id); remove it");
                case "modalities" -> require(value.isArray() && value.size() == 1 && "text".equals(value.get(0).asText()), "modalities",
                        "only [\"text\"] is supported for 'modalities'");
                default -> {
                    if (!PASSED.contains(name)) {
                        throw ApiError.badRequest("'" + ChatRequest.shorten(name) + "' is not supported by Herald's API; remove it "
                                + "(supported: model, messages, stream, stream_options, tools, n (1), " + String.join(", ", PASSED) + ")", name);
                    }
                    check(name, value);
                    parameters.put(name, value.toString());
                }
            }
        }
        if (tools.isEmpty() && (parameters.containsKey("tool_choice") || parameters.containsKey("parallel_tool_calls"))) {
            String which = parameters.containsKey("tool_choice") ? "tool_choice" : "parallel_tool_calls";
            throw ApiError.badRequest("'" + which + "' is given without 'tools'", which);
        }
        return new RequestFields(model, stream, includeUsage, parameters, tools);
    }

    /** Type and range of a passed parameter, as OpenAI documents them. */
    static void check(String name, JsonNode v) {
        switch (name) {
            case "temperature" -> range(v, name, 0, 2);
            case "top_p" -> range(v, name, 0, 1);
            case "presence_penalty", "frequency_penalty" -> range(v, name, -2, 2);
            case "max_tokens", "max_completion_tokens", "max_output_tokens" ->
                    require(v.isIntegralNumber() && v.asLong() >= 1, name, "'" + name + "' must be a whole number of at least 1");
            case "seed" -> require(v.isIntegralNumber(), name, "'seed' must be a whole number");
            case "stop" -> require(v.isTextual() || v.isArray() && v.size() <= 4 && allText(v), name,
                    "'stop' must be a string or an array of at most 4 strings");
            case "response_format" -> responseFormat(v);
            case "tool_choice" -> require(v.isTextual() && Set.of("none", "auto", "required").contains(v.asText()) || v.isObject(), name,
                    "'tool_choice' must be none, auto, required or {\"type\":\"function\",\"function\":{\"name\":...}}");
            case "parallel_tool_calls" -> bool(v, name);
            case "logit_bias" -> require(v.isObject(), name, "'logit_bias' must be an object of token ids to numbers");
            case "user", "reasoning_effort" -> text(v, name);
            default -> {
            }
        }
    }

    private static void responseFormat(JsonNode v) {
        String type = v.isObject() ? v.path("type").asText("") : "";
        require(Set.of("text", "json_object", "json_schema").contains(type), "response_format",
                "'response_format' must be {\"type\": \"text\" | \"json_object\" | \"json_schema\", ...}");
        require(!type.equals("json_schema") || v.path("json_schema").isObject(), "response_format",
                "'response_format' of type json_schema needs a 'json_schema' object");
    }

    private static boolean streamOptions(JsonNode v) {
        require(v.isObject(), "stream_options", "'stream_options' must be an object such as {\"include_usage\": true}");
        boolean usage = false;
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            if (e.getKey().equals("include_usage")) {
                usage = !e.getValue().isNull() && bool(e.getValue(), "stream_options.include_usage");
            } else {
                throw ApiError.badRequest("'stream_options." + ChatRequest.shorten(e.getKey()) + "' is not supported (only include_usage)",
                        "stream_options." + e.getKey());
            }
        }
        return usage;
    }

    private static List<TurnOptions.ClientTool> tools(JsonNode v) {
        require(v.isArray(), "tools", "'tools' must be an array of {\"type\":\"function\",\"function\":{...}}");
        List<TurnOptions.ClientTool> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            String at = "tools[" + i + "]";
            JsonNode t = v.get(i);
            require(t.isObject() && "function".equals(t.path("type").asText()), at + ".type",
                    at + ": only tools of type 'function' are supported");
            JsonNode f = t.path("function");
            String name = f.path("name").asText("");
            require(TOOL_NAME.matcher(name).matches(), at + ".function.name",
                    at + ".function.name must be 1-64 letters, digits, '_' or '-', was '" + ChatRequest.shorten(name) + "'");
            require(out.stream().noneMatch(c -> c.name().equals(name)), at + ".function.name", at + ": tool '" + name + "' is listed twice");
            JsonNode params = f.get("parameters");
            require(params == null || params.isNull() || params.isObject(), at + ".function.parameters",
                    at + ".function.parameters must be a JSON schema object");
            out.add(new TurnOptions.ClientTool(name, f.path("description").asText(""),
                    params == null || params.isNull() ? null : params.toString()));
        }
        return out;
    }

    private static void range(JsonNode v, String name, double min, double max) {
        require(v.isNumber() && v.asDouble() >= min && v.asDouble() <= max, name,
                "'" + name + "' must be a number from " + fmt(min) + " to " + fmt(max) + ", was " + ChatRequest.shorten(v.toString()));
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode n : array) {
            if (!n.isTextual()) {
                return false;
            }
        }
        return true;
    }

    static String text(JsonNode v, String name) {
        require(v.isTextual(), name, "'" + name + "' must be a string");
        return v.asText();
    }

    static boolean bool(JsonNode v, String name) {
        require(v.isBoolean(), name, "'" + name + "' must be true or false");
        return v.asBoolean();
    }

    static void require(boolean ok, String param, String message) {
        if (!ok) {
            throw ApiError.badRequest(message, param);
        }
    }
}
