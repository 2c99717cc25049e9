package dev.herald.app.config;

import dev.herald.core.config.Secret;
import dev.herald.core.config.ConfigChecks;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Prints a configuration as YAML-like text for {@code herald config check} and the start-up log line.
 * Secrets are {@code ****} (twice guarded: {@link Secret} serialises masked, and any key named like a
 * credential is masked here whatever its type); unset values read {@code (not set)}; a value set by an
 * environment variable carries {@code # from VAR}.
 */
final class ConfigPrinter {
    private static final int LONG_TEXT = 100;
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:@+-][A-Za-z0-9_./:@+ ,()-]*");
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private ConfigPrinter() {
    }

    static String render(HeraldConfig config, Map<String, String> envOverrides) {
        JsonNode tree = Sections.tree(Mappers.yaml(), config);
        StringBuilder out = new StringBuilder();
        object(tree, "", 0, envOverrides, out);
        return out.toString().stripTrailing();
    }

    private static void object(JsonNode node, String path, int indent, Map<String, String> overrides, StringBuilder out) {
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String childPath = Provenance.child(path, field.getKey());
            JsonNode value = field.getValue();
            out.append(" ".repeat(indent)).append(field.getKey()).append(':');
            if (value.isObject() && !value.isEmpty()) {
                out.append('\n');
                object(value, childPath, indent + 2, overrides, out);
                continue;
            }
            if (value.isArray() && !value.isEmpty()) {
                out.append('\n');
                for (int i = 0; i < value.size(); i++) {
                    JsonNode item = value.get(i);
                    if (item.isObject()) {
                        out.append(" ".repeat(indent + 2)).append("-\n");
                        object(item, childPath + "[" + i + "]", indent + 4, overrides, out);
                    } else {
                        out.append(" ".repeat(indent + 2)).append("- ").append(scalar(item, field.getKey())).append('\n');
                    }
                }
                continue;
            }
            out.append(' ').append(value.isObject() ? "{}" : value.isArray() ? "[]" : scalar(value, field.getKey()));
            String variable = overrides.get(childPath);
            if (variable != null) {
                out.append("   # from ").append(variable);
            }
            out.append('\n');
        }
    }

    static String scalar(JsonNode value, String key) {
        if (value == null || value.isNull()) {
            return "(not set)";
        }
        if (Sections.isSecretName(key)) {
            return "****";
        }
        if (value.isFloatingPointNumber()) {
            return ConfigChecks.number(value.doubleValue());
        }
        if (value.isArray()) {
            return value.toString();
        }
        if (!value.isTextual()) {
            return value.asText();
        }
        String text = value.textValue();
        if (text.length() > LONG_TEXT) {
            return quote(text.substring(0, LONG_TEXT) + "...") + " (" + text.length() + " characters)";
        }
        boolean plain = PLAIN.matcher(text).matches() && !text.endsWith(" ") && !text.contains(": ")
                && !text.matches("(?i)true|false|null|yes|no|on|off|~|[-+]?(\\d+\\.?\\d*|\\.\\d+)([e][-+]?\\d+)?");
        return plain ? text : quote(text);
    }

    private static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (JsonProcessingException impossible) {
            return "\"" + text + "\"";
        }
    }
}
