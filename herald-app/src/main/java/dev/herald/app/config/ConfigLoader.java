package dev.herald.app.config;

import dev.herald.app.plugins.PlatformPlugins;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.ConfigException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the {@link HeraldConfig} once: read the YAML file (a missing file means all defaults), replace
 * {@code ${VAR}} references, apply the environment overrides, fill defaults, bind into the records,
 * validate every section, resolve paths under the home. Any problem is one {@link ConfigException}
 * naming the file, the line and the key path. {@code platforms:} has a section for every platform plug-in it is
 * given ({@link PlatformPlugins}), bound into the plug-in's settings record.
 *
 * <p>Precedence, highest first: an {@link EnvOverride} variable (Herald's name, then the legacy one), the
 * file, the section's {@code defaults()}.
 */
public final class ConfigLoader {
    private final Map<String, String> env;
    private final Sections sections;
    private final YAMLMapper mapper;

    /** A loader for Herald's own platforms. @param env the process environment (tests pass their own) */
    public ConfigLoader(Map<String, String> env) {
        this(env, PlatformPlugins.builtIn());
    }

    /** A loader whose {@code platforms:} has a section for each of {@code plugins}. */
    public ConfigLoader(Map<String, String> env, PlatformPlugins plugins) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
        this.sections = new Sections(plugins);
        this.mapper = Mappers.binding(sections);
    }

    /**
     * A loader for the home {@code home}: Herald's own platforms and the plug-in jars in its {@code plugins} folder.
     *
     * @throws ConfigException naming the jar when a plug-in jar cannot be used
     */
    public static ConfigLoader forHome(Map<String, String> env, Path home) {
        return new ConfigLoader(env, PlatformPlugins.load(home));
    }

    /**
     * Loads {@code file}. When {@code explicit} (given with {@code --config}) the file must exist; otherwise
     * a missing file means all defaults.
     *
     * @throws ConfigException when the file cannot be read or holds an unusable value
     */
    public LoadedConfig load(Path file, boolean explicit, Path home) {
        Path absolute = file.toAbsolutePath().normalize();
        boolean exists = Files.exists(absolute);
        if (!exists && explicit) {
            throw ConfigException.at(absolute.toString(), "no such file (given with --config); create it, or drop --config to use "
                    + home.resolve("config.yaml"));
        }
        Provenance provenance = new Provenance(absolute, exists);
        ObjectNode tree = exists ? parse(absolute, read(absolute), provenance) : JsonNodeFactory.instance.objectNode();
        new Interpolator(env, provenance).apply(tree);
        applyEnvOverrides(tree, provenance);
        Defaults.fill(mapper, tree, HeraldConfig.class, sections);
        HeraldConfig config;
        try {
            config = mapper.treeToValue(tree, HeraldConfig.class);
        } catch (JsonProcessingException e) {
            throw BindingErrors.translate(e, tree, provenance, sections);
        }
        UrlCredentials.check(config, provenance); // first: other checks may quote a URL
        Sections.validate(config, new ConfigChecks("", provenance));
        return new LoadedConfig(config.resolvedIn(home), absolute, exists, provenance.envOverrides());
    }

    private static String read(Path file) {
        if (Files.isDirectory(file)) {
            throw ConfigException.at(file.toString(), "is a directory, not a YAML file");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw ConfigException.at(file.toString(), "is not UTF-8 text; save it as UTF-8");
        } catch (IOException e) {
            throw new ConfigException("config - " + file + ": cannot be read (" + e + "); check the path and its permissions", e);
        }
    }

    private ObjectNode parse(Path file, String text, Provenance provenance) {
        YamlLimits.check(file, text);
        JsonNode root;
        try {
            YamlLines.record(mapper.getFactory(), text, provenance);
            root = mapper.readTree(text);
        } catch (StreamReadException | com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            String problem = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().lines().findFirst().orElse("").strip();
            throw new ConfigException("config - " + file + (line > 0 ? " line " + line : "") + ": not valid YAML: " + problem
                    + "; check indentation and that every key is followed by ': '", e);
        } catch (IOException e) {
            throw new ConfigException("config - " + file + ": cannot be read (" + e + ")", e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return JsonNodeFactory.instance.objectNode();
        }
        if (!(root instanceof ObjectNode object)) {
            throw ConfigException.at(file + " line 1", "the file must be a mapping of sections such as model:, platforms:, gateway:, store:, was "
                    + (root.isArray() ? "a list" : "a single value"));
        }
        return object;
    }

    /** Puts each set override variable's value at its key (a text node; binding checks its type). */
    private void applyEnvOverrides(ObjectNode tree, Provenance provenance) {
        applyEnvOverrides(tree, HeraldConfig.class, "", provenance);
    }

    private void applyEnvOverrides(ObjectNode node, Class<?> section, String prefix, Provenance provenance) {
        for (Sections.Key key : sections.keys(section)) {
            String path = Provenance.child(prefix, key.name());
            if (key.isSection()) {
                JsonNode child = node.get(key.name());
                if (child == null || child.isNull()) {
                    if (!hasOverrideBelow(key.type())) {
                        continue;
                    }
                    child = node.putObject(key.name());
                }
                if (child instanceof ObjectNode nested) {
                    applyEnvOverrides(nested, key.type(), path, provenance);
                }
                continue;
            }
            for (String variable : key.envOverrides()) {
                String value = env.get(variable);
                if (value != null && !value.isBlank()) {
                    node.set(key.name(), TextNode.valueOf(value.strip()));
                    provenance.envOverride(path, variable);
                    break;
                }
            }
        }
    }

    private boolean hasOverrideBelow(Class<?> section) {
        for (Sections.Key key : sections.keys(section)) {
            List<String> vars = key.envOverrides();
            if (vars.stream().anyMatch(v -> env.get(v) != null && !env.get(v).isBlank())
                    || (key.isSection() && hasOverrideBelow(key.type()))) {
                return true;
            }
        }
        return false;
    }
}
