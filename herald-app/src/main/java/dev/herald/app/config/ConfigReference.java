package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every configuration key with its default and meaning, as a Markdown table, generated from the records
 * ({@link Doc}, {@link EnvOverride}, {@code defaults()}). {@code herald config reference} prints it and the
 * README embeds it; a test keeps the two the same.
 */
public final class ConfigReference {
    private ConfigReference() {
    }

    public static String markdown() {
        StringBuilder out = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
        section(HeraldConfig.class, "", out);
        return out.toString();
    }

    private static void section(Class<?> type, String prefix, StringBuilder out) {
        JsonNode defaults = Mappers.yaml().valueToTree(Sections.defaultsOf(type));
        for (Sections.Key key : Sections.keys(type)) {
            String path = Provenance.child(prefix, key.name());
            if (key.isSection()) {
                section(key.type(), path, out);
                continue;
            }
            if (key.isSectionMap()) {
                out.append("| `").append(path).append("` | `{}` | ").append(key.doc()).append(" |\n");
                section(key.mapValue(), path + ".<name>", out);
                continue;
            }
            if (key.isSectionList()) {
                out.append("| `").append(path).append("` | `[]` | ").append(key.doc()).append(" |\n");
                section(key.element(), path + "[]", out);
                continue;
            }
            String value = ConfigPrinter.scalar(defaults.get(key.name()), key.name());
            String shown = value.equals("(not set)") ? "not set" : "`" + value + "`";
            StringBuilder meaning = new StringBuilder(key.doc());
            if (key.type().isEnum()) {
                meaning.append(" (one of ").append(BindingErrors.enumNames(key.type())).append(')');
            }
            List<String> env = key.envOverrides();
            if (!env.isEmpty()) {
                meaning.append("; overridden by ")
                        .append(env.stream().map(v -> "`" + v + "`").collect(Collectors.joining(", then ")));
            }
            if (Sections.isSecretName(key.name())) {
                meaning.append("; secret: never printed or logged");
            }
            out.append("| `").append(path).append("` | ").append(shown).append(" | ").append(meaning).append(" |\n");
        }
    }
}
