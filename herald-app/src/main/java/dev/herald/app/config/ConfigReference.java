package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.app.plugins.PlatformPlugins;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every configuration key with its default and meaning, as a Markdown table, generated from the records
 * ({@link Doc}, {@link EnvOverride}, {@code defaults()}), the platform plug-ins' settings records included.
 * {@code herald config reference} prints it for Herald's own platforms and the README embeds it; a test keeps the
 * two the same.
 */
public final class ConfigReference {
    private ConfigReference() {
    }

    /** The reference of Herald's own platforms. */
    public static String markdown() {
        return markdown(PlatformPlugins.builtIn());
    }

    /** The reference with a {@code platforms.<type>} section for each of {@code plugins}. */
    public static String markdown(PlatformPlugins plugins) {
        StringBuilder out = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
        section(new Sections(plugins), HeraldConfig.class, "", out);
        return out.toString();
    }

    private static void section(Sections sections, Class<?> type, String prefix, StringBuilder out) {
        JsonNode defaults = Sections.tree(Mappers.yaml(), sections.defaultsOf(type));
        for (Sections.Key key : sections.keys(type)) {
            String path = Provenance.child(prefix, key.name());
            if (key.isSection()) {
                section(sections, key.type(), path, out);
                continue;
            }
            if (key.isSectionMap()) {
                out.append("| `").append(path).append("` | `{}` | ").append(key.doc()).append(" |\n");
                section(sections, key.mapValue(), path + ".<name>", out);
                continue;
            }
            if (key.isSectionList()) {
                out.append("| `").append(path).append("` | `[]` | ").append(key.doc()).append(" |\n");
                section(sections, key.element(), path + "[]", out);
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
