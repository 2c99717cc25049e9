package dev.herald.app.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.EnumFeature;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonToken;
import dev.herald.core.config.Secret;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.Serial;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The one Jackson setup for configuration: snake_case keys, strict about unknown keys and lossy numbers, enums by their
 * lower-case names, paths as plain text, {@link Secret}s read from text and written masked.
 */
final class Mappers {
    private static final YAMLMapper SHARED = build();

    private Mappers() {
    }

    /** The shared mapper; Jackson mappers are thread-safe once configured. */
    static YAMLMapper yaml() {
        return SHARED;
    }

    private static YAMLMapper build() {
        SimpleModule values = new SimpleModule("herald-config-values");
        values.addSerializer(Path.class, ToStringSerializer.instance);
        values.addDeserializer(Path.class, new PathDeserializer());
        values.addSerializer(Secret.class, new SecretSerializer());
        values.addDeserializer(Secret.class, new SecretDeserializer());
        return YAMLMapper.builder(new YAMLFactory())
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .enable(EnumFeature.WRITE_ENUMS_TO_LOWERCASE) // enums are written as their lower-case names: pair, queue, json
                .addModule(values)
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

    /** A secret is written as {@code ****} (null when not set): the printout and the reference never show its value. */
    private static final class SecretSerializer extends StdSerializer<Secret> {
        @Serial
        private static final long serialVersionUID = 1L;

        SecretSerializer() {
            super(Secret.class);
        }

        @Override
        public void serialize(Secret value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            String masked = value.masked();
            if (masked == null) {
                gen.writeNull();
            } else {
                gen.writeString(masked);
            }
        }
    }

    /** A secret is written as text (a number or a boolean is read as its text); a blank one is {@link Secret#NONE}. */
    private static final class SecretDeserializer extends StdScalarDeserializer<Secret> {
        @Serial
        private static final long serialVersionUID = 1L;

        SecretDeserializer() {
            super(Secret.class);
        }

        @Override
        public Secret deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonToken t = p.currentToken();
            if (t == null || !t.isScalarValue()) {
                return (Secret) ctxt.handleUnexpectedToken(Secret.class, p);
            }
            return Secret.of(p.getValueAsString());
        }
    }
}
