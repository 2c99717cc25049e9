package dev.herald.app.config;

import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The shape of the configuration, read from the record types themselves: a section is a record, its keys
 * are its components in snake_case, its defaults come from its static {@code defaults()} method. Everything
 * that walks the configuration (defaults, environment overrides, validation, the reference) goes through
 * here, so a new section needs no registration beyond being a component of its parent.
 */
final class Sections {
    private static final PropertyNamingStrategies.SnakeCaseStrategy SNAKE = new PropertyNamingStrategies.SnakeCaseStrategy();
    private static final Pattern SECRET_NAME = Pattern.compile(".*(key|token|secret|password)$");

    private Sections() {
    }

    /**
     * One key of a section. {@code element} is the record type of a list's items, else null; {@code mapValue}
     * is the record type of a map's values (a map of named sections, such as webhook routes), else null.
     */
    record Key(String name, RecordComponent component, Class<?> type, Class<?> element, Class<?> mapValue) {
        boolean isSection() {
            return type.isRecord();
        }

        boolean isSectionList() {
            return element != null;
        }

        boolean isSectionMap() {
            return mapValue != null;
        }

        String doc() {
            Doc doc = component.getAnnotation(Doc.class);
            return doc == null ? "" : doc.value();
        }

        List<String> envOverrides() {
            EnvOverride o = component.getAnnotation(EnvOverride.class);
            return o == null ? List.of() : List.of(o.value());
        }

        Object valueIn(Record r) {
            try {
                return component.getAccessor().invoke(r);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + name + " of " + r.getClass().getSimpleName(), e);
            }
        }
    }

    static List<Key> keys(Class<?> section) {
        List<Key> keys = new ArrayList<>();
        for (RecordComponent c : section.getRecordComponents()) {
            keys.add(new Key(SNAKE.translate(c.getName()), c, c.getType(), sectionListElement(c), sectionMapValue(c)));
        }
        return keys;
    }

    /** The section type at a dotted path under {@code root} ({@code platforms.api_server}), or null. */
    static Class<?> sectionAt(Class<?> root, String path) {
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

    /** The section's {@code defaults()}; every section record must have one. */
    static Record defaultsOf(Class<?> section) {
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
        for (Key key : keys(section.getClass())) {
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
