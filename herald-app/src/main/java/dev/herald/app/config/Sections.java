package dev.herald.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.app.plugins.PlatformPlugins;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Validated;
import dev.herald.core.platform.PlatformPlugin;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The shape of the configuration, read from the record types themselves: a section is a record, its keys
 * are its components in snake_case, its defaults come from its static {@code defaults()} method. Everything
 * that walks the configuration (defaults, environment overrides, validation, the reference, the printout) goes
 * through here, so a new section needs no registration beyond being a component of its parent.
 *
 * <p>One section is shaped by the plug-ins found at start: {@code platforms:} has a key per platform plug-in
 * ({@code platforms.telegram}), whose section is the plug-in's settings record with the plug-in's {@code defaults()},
 * in place of {@link PlatformsConfig}'s {@link PlatformSections} component. A walk over types asks this instance,
 * made for the plug-ins found; a walk over bound values reads the plug-in sections the value holds
 * ({@link #keysOf(Record)}).
 */
final class Sections {
    private static final PropertyNamingStrategies.SnakeCaseStrategy SNAKE = new PropertyNamingStrategies.SnakeCaseStrategy();
    private static final Pattern SECRET_NAME = Pattern.compile(".*(key|token|secret|password)$");

    private final PlatformPlugins plugins;

    Sections(PlatformPlugins plugins) {
        this.plugins = plugins;
    }

    /** The shape with Herald's own plug-ins. */
    static Sections builtIn() {
        return new Sections(PlatformPlugins.builtIn());
    }

    PlatformPlugins plugins() {
        return plugins;
    }

    /**
     * One key of a section. {@code element} is the record type of a list's items, else null; {@code mapValue}
     * is the record type of a map's values (a map of named sections, such as webhook routes), else null.
     */
    record Key(String name, Class<?> type, Class<?> element, Class<?> mapValue, String doc, List<String> envOverrides,
            Function<Record, Object> reader) {
        boolean isSection() {
            return type.isRecord();
        }

        boolean isSectionList() {
            return element != null;
        }

        boolean isSectionMap() {
            return mapValue != null;
        }

        Object valueIn(Record r) {
            return reader.apply(r);
        }

        static Key of(RecordComponent c) {
            Doc doc = c.getAnnotation(Doc.class);
            EnvOverride o = c.getAnnotation(EnvOverride.class);
            return new Key(SNAKE.translate(c.getName()), c.getType(), sectionListElement(c), sectionMapValue(c),
                    doc == null ? "" : doc.value(), o == null ? List.of() : List.of(o.value()), r -> read(c, r));
        }

        /** The section of a plug-in's type under {@code platforms:}. */
        static Key plugin(String type, Class<?> settings) {
            return new Key(type, settings, null, null, "", List.of(), r -> {
                PluginSection s = ((PlatformsConfig) r).chat().get(type);
                return s == null ? null : s.settings();
            });
        }

        private static Object read(RecordComponent c, Record r) {
            try {
                return c.getAccessor().invoke(r);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass().getSimpleName(), e);
            }
        }
    }

    /** The keys of the section type {@code section}: for {@code platforms:}, one per plug-in found. */
    List<Key> keys(Class<?> section) {
        List<Key> keys = new ArrayList<>();
        for (RecordComponent c : section.getRecordComponents()) {
            if (c.isAnnotationPresent(PlatformSections.class)) {
                plugins.all().forEach(p -> keys.add(Key.plugin(p.type(), p.settingsType())));
            } else {
                keys.add(Key.of(c));
            }
        }
        return keys;
    }

    /** The keys of the bound section {@code value}: for {@code platforms:}, one per plug-in section it holds. */
    static List<Key> keysOf(Record value) {
        List<Key> keys = new ArrayList<>();
        for (RecordComponent c : value.getClass().getRecordComponents()) {
            if (c.isAnnotationPresent(PlatformSections.class)) {
                ((PlatformsConfig) value).chat().forEach((type, s) -> keys.add(Key.plugin(type, s.settings().getClass())));
            } else {
                keys.add(Key.of(c));
            }
        }
        return keys;
    }

    /** The section type at a dotted path under {@code root} ({@code platforms.api_server}), or null. */
    Class<?> sectionAt(Class<?> root, String path) {
        Class<?> type = root;
        if (path.isEmpty()) {
            return type;
        }
        String[] parts = path.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            String name = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
            Key found = keys(type).stream().filter(k -> k.name().equals(name)).findFirst().orElse(null);
            if (found == null) {
                return null;
            }
            if (found.isSectionMap()) {
                if (i + 1 == parts.length) {
                    return null;
                }
                i++; // the next part is an entry's name
                type = found.mapValue();
                continue;
            }
            type = found.isSectionList() ? found.element() : found.type();
            if (!type.isRecord()) {
                return null;
            }
        }
        return type;
    }

    /** The section's defaults: a plug-in's {@code defaults()} for its settings, else the record's static {@code defaults()}. */
    Record defaultsOf(Class<?> section) {
        for (PlatformPlugin<?> p : plugins.all()) {
            if (p.settingsType() == section) {
                return p.defaults();
            }
        }
        if (section == PlatformsConfig.class) {
            return PlatformsConfig.defaults(plugins);
        }
        return staticDefaultsOf(section);
    }

    /** The section's static {@code defaults()}; every section record must have one. */
    static Record staticDefaultsOf(Class<?> section) {
        try {
            Method m = section.getMethod("defaults");
            return (Record) m.invoke(null);
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException | ClassCastException e) {
            throw new IllegalStateException(section.getSimpleName()
                    + " is a configuration section and needs a public static defaults() returning it", e);
        }
    }

    /** Keys named like a credential: their values are masked everywhere. */
    static boolean isSecretName(String key) {
        return SECRET_NAME.matcher(key.toLowerCase(Locale.ROOT)).matches();
    }

    /** Calls {@link Validated#validate} on {@code section} and then on every nested section, depth first. */
    static void validate(Record section, ConfigChecks check) {
        if (section instanceof Validated v) {
            v.validate(check);
        }
        for (Key key : keysOf(section)) {
            Object value = key.valueIn(section);
            if (value instanceof Record nested) {
                validate(nested, check.child(key.name()));
            } else if (value instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (e.getValue() instanceof Record item) {
                        validate(item, check.child(key.name() + "." + e.getKey()));
                    }
                }
            } else if (value instanceof List<?> list) {
                for (int i = 0; i < list.size(); i++) {
                    if (list.get(i) instanceof Record item) {
                        validate(item, check.child(key.name() + "[" + i + "]"));
                    }
                }
            }
        }
    }

    /**
     * The bound section {@code value} as the file would hold it (snake_case keys, in order, secrets masked by their
     * serializer), for the printout and the defaults; values that are not sections are written by {@code mapper}.
     */
    static ObjectNode tree(ObjectMapper mapper, Record value) {
        ObjectNode node = mapper.createObjectNode();
        for (Key key : keysOf(value)) {
            Object v = key.valueIn(value);
            node.set(key.name(), v == null ? NullNode.instance
                    : v instanceof Record nested && key.isSection() ? tree(mapper, nested) : mapper.<JsonNode>valueToTree(v));
        }
        return node;
    }

    private static Class<?> sectionMapValue(RecordComponent c) {
        if (!Map.class.isAssignableFrom(c.getType())) {
            return null;
        }
        Type t = c.getGenericType();
        if (t instanceof ParameterizedType p && p.getActualTypeArguments()[1] instanceof Class<?> v && v.isRecord()) {
            return v;
        }
        return null;
    }

    private static Class<?> sectionListElement(RecordComponent c) {
        if (!List.class.isAssignableFrom(c.getType())) {
            return null;
        }
        Type t = c.getGenericType();
        if (t instanceof ParameterizedType p && p.getActualTypeArguments()[0] instanceof Class<?> e && e.isRecord()) {
            return e;
        }
        return null;
    }
}
