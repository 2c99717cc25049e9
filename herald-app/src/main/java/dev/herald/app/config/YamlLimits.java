package dev.herald.app.config;

import dev.herald.core.config.ConfigException;
import java.nio.file.Path;

/**
 * Limits checked on a configuration file's text before the YAML library reads it: a configuration is at most a
 * few levels deep and a few hundred lines, and the library spends seconds on a file nested thousands of flow
 * brackets deep. One pass, quotes and comments skipped; the error names the line.
 */
final class YamlLimits {
    static final int MAX_DEPTH = 64;
    static final int MAX_CHARS = 1024 * 1024;

    private YamlLimits() {
    }

    static void check(Path file, String text) {
        if (text.length() > MAX_CHARS) {
            throw ConfigException.at(file.toString(), "is " + text.length() + " characters long; a configuration file is at most "
                    + MAX_CHARS + " (is this the right file?)");
        }
        int depth = 0;
        int line = 1;
        char quote = 0;
        boolean comment = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
                comment = false;
                continue;
            }
            if (comment) {
                continue;
            }
            if (quote != 0) {
                if (quote == '"' && c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '"', '\'' -> quote = c;
                case '#' -> comment = i == 0 || Character.isWhitespace(text.charAt(i - 1));
                case '[', '{' -> {
                    if (++depth > MAX_DEPTH) {
                        throw ConfigException.at(file + " line " + line, "not valid YAML: lists and sections nested more than "
                                + MAX_DEPTH + " levels deep; check the brackets");
                    }
                }
                case ']', '}' -> depth = Math.max(0, depth - 1);
                default -> {
                }
            }
        }
    }
}
