package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Reading tool arguments; a missing or mistyped argument throws {@link IllegalArgumentException} with a message for the model. */
public final class Args {
    public static final ObjectMapper JSON = new ObjectMapper();

    private Args() {
    }

    public static String string(JsonNode args, String name) {
        JsonNode value = args.get(name);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("the argument '" + name + "' is required");
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException("the argument '" + name + "' must be a string (got " + value.getNodeType().name().toLowerCase()
                    + ")");
        }
        return value.asText();
    }

    public static String string(JsonNode args, String name, String fallback) {
        JsonNode value = args.get(name);
        return value == null || value.isNull() ? fallback : value.isTextual() ? value.asText() : value.toString();
    }

    public static long number(JsonNode args, String name, long fallback) {
        JsonNode value = args.get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (value.isNumber()) {
            return value.asLong();
        }
        if (value.isTextual() && value.asText().strip().matches("-?\\d+")) {
            return Long.parseLong(value.asText().strip());
        }
        throw new IllegalArgumentException("the argument '" + name + "' must be a whole number (got " + value + ")");
    }

    public static boolean flag(JsonNode args, String name, boolean fallback) {
        JsonNode value = args.get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        return value.isBoolean() ? value.asBoolean() : Boolean.parseBoolean(value.asText());
    }

    /** A JSON schema {@code {"type":"object","properties":{...},"required":[...]}} from name/type/description triples. */
    public static ObjectNode schema(String[] required, String... nameTypeDescription) {
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        for (int i = 0; i + 2 < nameTypeDescription.length; i += 3) {
            properties.putObject(nameTypeDescription[i]).put("type", nameTypeDescription[i + 1]).put("description", nameTypeDescription[i + 2]);
        }
        var list = schema.putArray("required");
        for (String name : required) {
            list.add(name);
        }
        return schema;
    }
}
