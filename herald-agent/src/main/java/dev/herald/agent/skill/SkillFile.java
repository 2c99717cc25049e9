package dev.herald.agent.skill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads one {@code SKILL.md}, which is hostile input: the front matter between two {@code ---} lines is parsed by a
 * YAML loader that builds a plain tree (never objects of a named class, no custom tags), with aliases, nesting and
 * size capped; only {@code name} and {@code description} are read from it. A problem is an
 * {@link IllegalArgumentException} whose message says what is wrong, for the start-up warning and the model.
 */
final class SkillFile {
    /** The Agent Skills rule for names: lower-case letters, digits and single hyphens, at most 64. */
    static final Pattern NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    static final int MAX_NAME = 64;
    static final int MAX_DESCRIPTION = 1_024;
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder().loaderOptions(limits()).build());

    private SkillFile() {
    }

    private static LoaderOptions limits() {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(10);
        options.setNestingDepthLimit(20);
        options.setCodePointLimit(Skills.MAX_SKILL_BYTES);
        options.setAllowRecursiveKeys(false);
        return options;
    }

    /** Null when {@code name} is a valid skill name, else why not. */
    static String badName(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
            return "'" + name + "' is not a skill name (lower-case letters, digits and single hyphens, at most " + MAX_NAME + ")";
        }
        return null;
    }

    /** The skill in {@code text}, the {@code SKILL.md} of folder {@code dir} named {@code folder}. */
    static Skill parse(String folder, Path dir, String text) {
        String t = text.startsWith("\ufeff") ? text.substring(1) : text;
        String[] lines = t.split("\r?\n", -1);
        if (lines.length == 0 || !lines[0].strip().equals("---")) {
            throw new IllegalArgumentException("it does not start with YAML front matter (a line ---, then name: and description:, then ---)");
        }
        int end = -1;
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].strip().equals("---")) {
                end = i;
                break;
            }
        }
        if (end < 0) {
            throw new IllegalArgumentException("its front matter is not closed by a line ---");
        }
        String yaml = String.join("\n", java.util.Arrays.copyOfRange(lines, 1, end));
        JsonNode front;
        try {
            front = YAML.readTree(yaml);
        } catch (Exception e) {
            throw new IllegalArgumentException("its front matter is not valid YAML (" + firstLine(e.getMessage()) + ")");
        }
        if (front == null || !front.isObject()) {
            throw new IllegalArgumentException("its front matter is not a YAML mapping with name: and description:");
        }
        String name = text(front, "name");
        String description = text(front, "description");
        String bad = badName(name);
        if (bad != null) {
            throw new IllegalArgumentException("its name " + bad);
        }
        if (!name.equals(folder)) {
            throw new IllegalArgumentException("its name '" + name + "' does not match its folder '" + folder + "'");
        }
        if (description.isBlank()) {
            throw new IllegalArgumentException("its description is empty");
        }
        if (description.length() > MAX_DESCRIPTION) {
            throw new IllegalArgumentException("its description has " + description.length() + " characters; at most " + MAX_DESCRIPTION);
        }
        String body = String.join("\n", java.util.Arrays.copyOfRange(lines, end + 1, lines.length)).strip();
        return new Skill(name, description.strip(), dir, body);
    }

    private static String text(JsonNode front, String field) {
        JsonNode value = front.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("its front matter has no " + field + ":");
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException("its " + field + ": is not text");
        }
        return value.asText();
    }

    private static String firstLine(String message) {
        String m = message == null ? "unreadable" : message.strip();
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).strip();
    }
}
