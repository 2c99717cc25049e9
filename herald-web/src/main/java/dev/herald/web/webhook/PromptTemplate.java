package dev.herald.web.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A route's prompt: text with placeholders filled from the JSON payload. {@code {a.b.c}} is the value at
 * that path (a number segment indexes an array: {@code {commits.0.message}}); text values are inserted as
 * they are, other values as compact JSON. {@code {__raw__}} is the whole payload, pretty-printed and cut at
 * {@value #RAW_LIMIT} characters. A placeholder whose path is not in the payload is left as written, so the
 * model (and whoever reads the transcript) sees what was missing. An empty template means {@code {__raw__}}.
 */
final class PromptTemplate {
    static final int RAW_LIMIT = 16_000;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_.\\-]+)}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private PromptTemplate() {
    }

    static String render(String template, JsonNode payload) {
        String t = template == null || template.isBlank() ? "{__raw__}" : template;
        Matcher m = PLACEHOLDER.matcher(t);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String path = m.group(1);
            String value = path.equals("__raw__") ? raw(payload) : lookup(payload, path);
            m.appendReplacement(out, Matcher.quoteReplacement(value == null ? m.group() : value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String lookup(JsonNode payload, String path) {
        JsonNode n = payload;
        for (String part : path.split("\\.")) {
            if (n == null) {
                return null;
            }
            n = n.isArray() && part.length() <= 9 && part.chars().allMatch(Character::isDigit) ? n.get(Integer.parseInt(part)) : n.get(part);
        }
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        return n.isValueNode() ? n.asText() : n.toString();
    }

    private static String raw(JsonNode payload) {
        String text;
        try {
            text = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            text = payload.toString();
        }
        return text.length() <= RAW_LIMIT ? text
                : text.substring(0, RAW_LIMIT) + "\n... (payload cut at " + RAW_LIMIT + " of " + text.length() + " characters)";
    }
}
