package dev.herald.app.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.Serial;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** The one Jackson setup for configuration: snake_case keys, strict about unknown keys and lossy numbers. */
final class Mappers {
    private static final YAMLMapper SHARED = build();

    private Mappers() {
    }

    /** The shared mapper; Jackson mappers are thread-safe once configured. */
    static YAMLMapper yaml() {
        return SHARED;
    }

    private static YAMLMapper build() {
        SimpleModule paths = new SimpleModule("herald-config-paths");
        paths.addSerializer(Path.class, ToStringSerializer.instance);
        paths.addDeserializer(Path.class, new PathDeserializer());
        return YAMLMapper.builder(new YAMLFactory())
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .addModule(paths)
                .build();
    }

    /** A path written as plain text (Jackson's own form is a file: URI). */
    private static final class PathDeserializer extends StdScalarDeserializer<Path> {
        @Serial
        private static final long serialVersionUID = 1L;

        PathDeserializer() {
            super(Path.class);
        }

        @Override
        public Path deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String text = p.getValueAsString();
            if (text == null) {
                return (Path) ctxt.handleUnexpectedToken(Path.class, p);
            }
            try {
                return Path.of(text);
            } catch (InvalidPathException e) {
                return (Path) ctxt.handleWeirdStringValue(Path.class, text, "not a file path: %s", e.getReason());
            }
        }
    }
}
