package dev.herald.app.config;

import dev.herald.core.config.ClosestKey;


import dev.herald.core.config.Secret;
import dev.herald.core.config.ConfigException;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Turns Jackson's binding failures into one operator message. Jackson's own text names no file, points
 * at a column past the value and may quote a secret; this names the file, the line, the key path, what
 * was expected and what was found (never a secret's value), and for an unknown key the closest known one.
 */
final class BindingErrors {
    private BindingErrors() {
    }

    static ConfigException translate(JsonProcessingException e, JsonNode tree, Provenance provenance, Sections sections) {
        if (e instanceof UnrecognizedPropertyException u) {
            return unknownKey(u, provenance, sections);
        }
        String path;
        Class<?> expected = null;
        if (e instanceof JsonMappingException m) {
            path = path(m.getPath());
            if (m instanceof MismatchedInputException mi) {
                expected = mi.getTargetType();
            }
        } else if (e instanceof StreamReadException s && s.getProcessor() instanceof JsonParser parser) {
            path = YamlLines.path(parser.getParsingContext());
        } else {
            path = "";
        }
        String found = found(tree, path, sections);
        String fact;
        if (e instanceof InvalidFormatException || (expected != null && e instanceof MismatchedInputException)) {
            fact = (path.isEmpty() ? "the file" : path) + " must be " + expected(expected) + found;
        } else {
            // out-of-range numbers and the like: Jackson's first line is precise enough, without its location
            String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("");
            fact = (path.isEmpty() ? "the file" : path) + " cannot be read: " + (isSecret(path) ? "bad value" : original);
        }
        return new ConfigException("config - " + provenance.where(path) + ": " + fact + provenance.origin(path), e);
    }

    private static ConfigException unknownKey(UnrecognizedPropertyException u, Provenance provenance, Sections sections) {
        String name = u.getPropertyName();
        List<JsonMappingException.Reference> refs = new ArrayList<>(u.getPath());
        if (!refs.isEmpty() && name.equals(refs.getLast().getFieldName())) {
            refs.removeLast();
        }
        String parent = path(refs);
        String path = Provenance.child(parent, name);
        Class<?> section = sections.sectionAt(HeraldConfig.class, parent);
        List<String> known = section != null
                ? sections.keys(section).stream().map(Sections.Key::name).toList()
                : known(u.getKnownPropertyIds());
        // a key that is not a name (a missing ": " glued a value to it) is not echoed: the value may be a secret
        // (a lone ${NAME} reference names a variable, not a value, so it is quoted: keys are not interpolated)
        boolean aName = name.matches("[A-Za-z0-9_.-]{1,64}|\\$\\{[A-Za-z_][A-Za-z0-9_]{0,63}\\}");
        StringBuilder fact = new StringBuilder("unknown key ").append(aName ? path
                : Provenance.child(parent, "<" + name.length() + " characters that are not a key name: check for a missing ': ' or a stray quote>"));
        ClosestKey.to(name, known).ifPresent(k -> fact.append("; did you mean ").append(Provenance.child(parent, k)).append('?'));
        fact.append(parent.isEmpty() ? " (known sections: " : " (known keys under " + parent + ": ")
                .append(String.join(", ", known)).append(')');
        return new ConfigException("config - " + provenance.where(path) + ": " + fact, u);
    }

    private static List<String> known(Collection<Object> ids) {
        return ids == null ? List.of() : ids.stream().map(String::valueOf).toList();
    }

    static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference ref : refs) {
            if (ref.getFieldName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    /** ", was <value>" for the value at {@code path} in the tree; nothing for secrets or when absent. */
    private static String found(JsonNode tree, String path, Sections sections) {
        if (isSecret(path)) {
            return "";
        }
        JsonNode node = nodeAt(tree, path);
        if (node == null || node.isMissingNode()) {
            return "";
        }
        if (node.isObject()) {
            return ", was a section (key: value lines)";
        }
        if (node.isArray()) {
            return ", was a list";
        }
        if (node.isTextual()) {
            // a section written as one string can hold its secrets: only short values of plain keys are quoted
            String text = node.textValue();
            boolean quotable = text.length() <= 80 && text.chars().noneMatch(c -> c < 0x20) && sections.sectionAt(HeraldConfig.class, path) == null;
            return quotable ? ", was \"" + text + "\"" : ", was text of " + text.length() + " characters";
        }
        return ", was " + node.asText();
    }

    private static boolean isSecret(String path) {
        return !path.isEmpty() && Sections.isSecretName(Provenance.leaf(path));
    }

    static JsonNode nodeAt(JsonNode tree, String path) {
        JsonNode node = tree;
        if (path.isEmpty()) {
            return node;
        }
        for (String part : path.split("\\.")) {
            String key = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
            node = node == null ? null : node.get(key);
            int at = part.indexOf('[');
            while (node != null && at >= 0) {
                int close = part.indexOf(']', at);
                node = node.get(Integer.parseInt(part.substring(at + 1, close)));
                at = part.indexOf('[', close);
            }
        }
        return node;
    }

    static String expected(Class<?> type) {
        if (type == null) {
            return "of another type";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class
                || type == short.class || type == Short.class) {
            return "a whole number";
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class || type == Secret.class) {
            return "text";
        }
        if (type == Path.class) {
            return "a file path";
        }
        if (type.isEnum()) {
            return "one of " + enumNames(type);
        }
        if (type.isRecord()) {
            return "a section of key: value lines";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        return "a " + type.getSimpleName().toLowerCase(Locale.ROOT);
    }

    static String enumNames(Class<?> type) {
        return java.util.Arrays.stream(type.getEnumConstants()).map(c -> {
            try {
                JsonProperty p = type.getField(((Enum<?>) c).name()).getAnnotation(JsonProperty.class);
                return p != null ? p.value() : ((Enum<?>) c).name().toLowerCase(Locale.ROOT);
            } catch (NoSuchFieldException impossible) {
                return ((Enum<?>) c).name().toLowerCase(Locale.ROOT);
            }
        }).collect(Collectors.joining(", "));
    }
}
