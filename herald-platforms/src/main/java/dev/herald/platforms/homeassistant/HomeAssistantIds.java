package dev.herald.platforms.homeassistant;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a service call the model asks for may name, checked before anything reaches Home Assistant: domains, services
 * and entity ids by Home Assistant's own rule (lower-case letters, digits and single underscores, no leading or
 * trailing underscore; an entity id is {@code <domain>.<object id>}), and the service data as a small JSON object that
 * names no target of its own (the target is the {@code entity} argument, so an approval question shows exactly what is
 * touched).
 */
final class HomeAssistantIds {
    private static final Pattern SLUG = Pattern.compile("(?!.*__)(?!_)[a-z0-9_]{1,64}(?<!_)");
    /** The service data's largest size as JSON, in bytes. */
    static final int MAX_DATA_BYTES = 4_096;
    static final int MAX_DATA_DEPTH = 4;
    static final int MAX_ENTITIES = 32;
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_]{1,64}");
    /** Keys that would aim the call at something other than {@code entity}. */
    private static final Set<String> TARGET_KEYS = Set.of("entity_id", "device_id", "area_id", "floor_id", "label_id");

    private HomeAssistantIds() {
    }

    static boolean validDomain(String text) {
        return text != null && SLUG.matcher(text).matches();
    }

    static boolean validEntity(String text) {
        if (text == null || text.length() > 255) {
            return false;
        }
        int dot = text.indexOf('.');
        return dot > 0 && validDomain(text.substring(0, dot)) && validDomain(text.substring(dot + 1));
    }

    /** The entity's domain ({@code light} of {@code light.kitchen}); only for a {@link #validEntity}. */
    static String domainOf(String entity) {
        return entity.substring(0, entity.indexOf('.'));
    }

    /** What is wrong with {@code data} as service data, or empty when it may be sent. */
    static Optional<String> dataProblem(JsonNode data) {
        if (data == null || data.isMissingNode() || data.isNull()) {
            return Optional.empty();
        }
        if (!data.isObject()) {
            return Optional.of("data must be a JSON object, was " + data.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        int bytes = data.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_DATA_BYTES) {
            return Optional.of("data is " + bytes + " bytes as JSON; at most " + MAX_DATA_BYTES);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = data.fields(); it.hasNext(); ) {
            String key = it.next().getKey();
            if (TARGET_KEYS.contains(key)) {
                return Optional.of("data must not name a target (" + key + "); put the entity ids in entity");
            }
        }
        return shape(data, 1);
    }

    private static Optional<String> shape(JsonNode node, int depth) {
        if (depth > MAX_DATA_DEPTH) {
            return Optional.of("data is nested deeper than " + MAX_DATA_DEPTH + " levels");
        }
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!KEY.matcher(e.getKey()).matches()) {
                    return Optional.of("data has a key that is not letters, digits and _: \"" + clip(e.getKey()) + "\"");
                }
                Optional<String> inner = shape(e.getValue(), depth + 1);
                if (inner.isPresent()) {
                    return inner;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode item : node) {
                Optional<String> inner = shape(item, depth + 1);
                if (inner.isPresent()) {
                    return inner;
                }
            }
        }
        return Optional.empty();
    }

    /** {@code text} cut to 80 characters with its control characters replaced, for error texts. */
    static String clip(String text) {
        String s = text == null ? "" : text.replaceAll("\\p{Cntrl}", "?");
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
