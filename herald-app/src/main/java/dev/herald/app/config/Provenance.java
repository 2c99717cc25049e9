package dev.herald.app.config;

import dev.herald.core.config.ConfigChecks;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where each configuration value came from: the line of its key in the file, the environment variable that
 * overrode it, the {@code ${...}} template it was interpolated from. Error messages use it to point at the
 * right place; it is filled while loading and only read afterwards.
 */
final class Provenance implements ConfigChecks.Origins {
    private final Path file;
    private final boolean fileExists;
    private final Map<String, Integer> lines = new HashMap<>();
    private final Map<String, String> envOverrides = new HashMap<>();
    private final Map<String, String> templates = new HashMap<>();
    private final Map<String, String> unsetVariables = new HashMap<>();

    Provenance(Path file, boolean fileExists) {
        this.file = file;
        this.fileExists = fileExists;
    }

    Path file() {
        return file;
    }

    boolean fileExists() {
        return fileExists;
    }

    void line(String path, int line) {
        lines.putIfAbsent(path, line);
    }

    void envOverride(String path, String variable) {
        envOverrides.put(path, variable);
    }

    void template(String path, String template) {
        templates.put(path, template);
    }

    void unsetVariable(String path, String variable) {
        unsetVariables.put(path, variable);
    }

    /** The environment variable that set {@code path}, or null. */
    String envOverride(String path) {
        return envOverrides.get(path);
    }

    Map<String, String> envOverrides() {
        return Map.copyOf(envOverrides);
    }

    /** The line of {@code path}'s key, else of its nearest ancestor that is in the file; 0 when none is. */
    int lineOf(String path) {
        for (String p = path; !p.isEmpty(); p = parent(p)) {
            Integer line = lines.get(p);
            if (line != null) {
                return line;
            }
        }
        return 0;
    }

    /** "the file line N", "environment variable X", or the file alone when the key is not in it. */
    @Override
    public String where(String path) {
        String variable = envOverrides.get(path);
        if (variable != null) {
            return "environment variable " + variable;
        }
        if (!fileExists) {
            return file + " (no such file; built-in defaults)";
        }
        int line = lineOf(path);
        return line > 0 ? file + " line " + line : file.toString();
    }

    /** A suffix telling where a value came from when it was not written literally, or "". */
    @Override
    public String origin(String path) {
        String unset = unsetVariables.get(path);
        if (unset != null) {
            return " (" + path + " is ${" + unset + "}, which is not set)";
        }
        String template = templates.get(path);
        return template != null ? " (value from " + template + ")" : "";
    }

    /** {@code a.b[2].c} -> {@code a.b[2]}; {@code a.b[2]} -> {@code a.b}; {@code a} -> "". */
    static String parent(String path) {
        int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
        return cut < 0 ? "" : path.substring(0, cut);
    }

    /** The key name at the end of {@code path}, without an index. */
    static String leaf(String path) {
        String p = path;
        while (p.endsWith("]")) {
            p = p.substring(0, p.lastIndexOf('['));
        }
        return p.substring(p.lastIndexOf('.') + 1);
    }

    static String child(String parent, String key) {
        return parent.isEmpty() ? key : parent + "." + key;
    }
}
