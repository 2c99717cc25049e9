package dev.herald.app.config;

import dev.herald.core.config.ConfigException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Records the line of every key in a YAML text, by dotted path ({@code platforms.api_server.port},
 * {@code mcp_servers[0].command}), so a message about a value can name its line. Jackson's tree has no
 * locations, so this is a second, streaming pass over the same text. It also rejects a key written twice
 * in one mapping, which Jackson's tree would resolve silently by keeping the last.
 */
final class YamlLines {
    private YamlLines() {
    }

    static void record(YAMLFactory factory, String text, Provenance into) throws IOException {
        Map<String, Integer> keys = new HashMap<>();
        try (JsonParser p = factory.createParser(text)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    String key = path(p.getParsingContext());
                    int line = p.currentTokenLocation().getLineNr();
                    Integer first = keys.putIfAbsent(key, line);
                    if (first != null) {
                        throw ConfigException.at(into.file() + " line " + line,
                                key + " appears twice (first on line " + first + "); keep one");
                    }
                }
                String path = t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY
                        ? path(p.getParsingContext().getParent()) : path(p.getParsingContext());
                if (!path.isEmpty()) {
                    into.line(path, p.currentTokenLocation().getLineNr());
                }
            }
        }
    }

    /** The dotted path of the value a parser (or a databind exception) is at. */
    static String path(JsonStreamContext context) {
        if (context == null) {
            return "";
        }
        String parent = path(context.getParent());
        if (context.inObject()) {
            String name = context.getCurrentName();
            return name == null ? parent : Provenance.child(parent, name);
        }
        if (context.inArray()) {
            return parent + "[" + Math.max(context.getCurrentIndex(), 0) + "]";
        }
        return parent;
    }
}
