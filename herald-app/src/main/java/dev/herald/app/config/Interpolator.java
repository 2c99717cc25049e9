package dev.herald.app.config;

import dev.herald.core.config.ConfigException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Replaces <code>${VAR}</code> and <code>${VAR:-default}</code> in every text value of the tree (keys are left
 * alone); <code>$${</code> writes a literal <code>${</code>. The default applies when the variable is unset or
 * empty. An unset variable without a default is an error naming the variable and the key, except in a
 * secret key ({@code api_key}, {@code *token}, ...), where it means "not set". A value that ends up empty
 * counts as absent, so its key takes the default.
 */
final class Interpolator {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Map<String, String> env;
    private final Provenance provenance;

    Interpolator(Map<String, String> env, Provenance provenance) {
        this.env = env;
        this.provenance = provenance;
    }

    void apply(ObjectNode root) {
        walkObject(root, "");
    }

    private void walkObject(ObjectNode node, String path) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        for (String name : names) {
            node.set(name, walk(node.get(name), Provenance.child(path, name)));
        }
    }

    private JsonNode walk(JsonNode node, String path) {
        if (node instanceof ObjectNode object) {
            walkObject(object, path);
            return object;
        }
        if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, walk(array.get(i), path + "[" + i + "]"));
            }
            return array;
        }
        if (node instanceof TextNode text) {
            return substitute(text.textValue(), path);
        }
        return node;
    }

    private JsonNode substitute(String value, String path) {
        if (value.indexOf('$') < 0) {
            return value.isBlank() ? NullNode.instance : TextNode.valueOf(value);
        }
        boolean secret = Sections.isSecretName(Provenance.leaf(path));
        StringBuilder out = new StringBuilder();
        boolean substituted = false;
        int i = 0;
        while (i < value.length()) {
            if (value.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (value.startsWith("${", i)) {
                int close = value.indexOf('}', i);
                String body = close < 0 ? null : value.substring(i + 2, close);
                String name = body == null ? null : body.split(":-", 2)[0];
                if (name == null || !NAME.matcher(name).matches()) {
                    throw ConfigException.at(provenance.where(path), path + " has a malformed ${...} reference"
                            + (secret ? "" : " in \"" + value + "\"") + "; write ${NAME} or ${NAME:-default}");
                }
                String resolved = env.get(name);
                boolean hasDefault = body.contains(":-");
                if ((resolved == null || resolved.isEmpty()) && hasDefault) {
                    resolved = body.substring(name.length() + 2);
                }
                if (resolved == null) {
                    if (secret) {
                        provenance.unsetVariable(path, name);
                        return NullNode.instance;
                    }
                    throw ConfigException.at(provenance.where(path), path + " uses ${" + name
                            + "}, which is not set; set " + name + " or write ${" + name + ":-default}");
                }
                out.append(resolved);
                substituted = true;
                i = close + 1;
            } else {
                out.append(value.charAt(i));
                i++;
            }
        }
        if (substituted && !secret) {
            provenance.template(path, value);
        }
        String result = out.toString();
        return result.isBlank() ? NullNode.instance : TextNode.valueOf(result);
    }
}
