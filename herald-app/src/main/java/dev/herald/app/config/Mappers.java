package dev.herald.app.config;

import dev.herald.web.api.ApiServerConfig;
import dev.herald.web.chat.WebChatConfig;
import dev.herald.web.webhook.WebhookConfig;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.herald.core.platform.PlatformPlugin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** The shared setup that also binds {@code platforms:}, with a section for each platform plug-in of {@code sections}. */
    static YAMLMapper binding(Sections sections) {
        SimpleModule platforms = new SimpleModule("herald-config-platforms");
        platforms.addDeserializer(PlatformsConfig.class, new PlatformsDeserializer(sections));
        YAMLMapper copy = SHARED.copy();
        copy.registerModule(platforms);
        return copy;
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

    /**
     * Binds {@code platforms:}: the web surfaces' sections into their records, and {@code platforms.<type>} into the
     * settings record of the plug-in of that type; any other key is unknown, named with the known ones. A failure inside
     * a section carries its path ({@code platforms.telegram.token}) like any other.
     */
    private static final class PlatformsDeserializer extends StdDeserializer<PlatformsConfig> {
        @Serial
        private static final long serialVersionUID = 1L;

        private static final String CHANNELS = "channels";
        private final transient Sections sections;

        PlatformsDeserializer(Sections sections) {
            super(PlatformsConfig.class);
            this.sections = sections;
        }

        @Override
        public PlatformsConfig deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (!p.isExpectedStartObjectToken()) {
                return (PlatformsConfig) ctxt.handleUnexpectedToken(PlatformsConfig.class, p);
            }
            JsonNode node = ctxt.readTree(p);
            PlatformsConfig defaults = PlatformsConfig.defaults(sections.plugins());
            ApiServerConfig api = defaults.apiServer();
            WebhookConfig webhook = defaults.webhook();
            WebChatConfig webchat = defaults.webchat();
            Map<String, PluginSection> chat = new LinkedHashMap<>(defaults.chat());
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String name = field.getKey();
                switch (name) {
                    case "api_server" -> api = section(ctxt, name, field.getValue(), ApiServerConfig.class);
                    case "webhook" -> webhook = section(ctxt, name, field.getValue(), WebhookConfig.class);
                    case "webchat" -> webchat = section(ctxt, name, field.getValue(), WebChatConfig.class);
                    default -> {
                        PlatformPlugin<?> plugin = sections.plugins().of(name).orElseThrow(() -> UnrecognizedPropertyException.from(p,
                                PlatformsConfig.class, name, new ArrayList<>(defaults.names())));
                        JsonNode value = field.getValue();
                        Map<String, ChannelConfig> channels = Map.of();
                        if (value instanceof ObjectNode o && o.has(CHANNELS) && !PluginSection.ownsChannelsKey(plugin)) {
                            value = o.deepCopy();
                            channels = channels(ctxt, name, ((ObjectNode) value).remove(CHANNELS));
                        } else if (value instanceof ObjectNode o && o.get(CHANNELS) instanceof ObjectNode map) {
                            // IRC's and Mattermost's channels to join, written as a map: each key is a channel to join,
                            // its value (may be empty) that channel's settings
                            ObjectNode copy = o.deepCopy();
                            com.fasterxml.jackson.databind.node.ArrayNode joined = copy.putArray(CHANNELS);
                            map.fieldNames().forEachRemaining(joined::add);
                            ObjectNode settingsOnly = map.deepCopy();
                            List<String> keys = new ArrayList<>();
                            settingsOnly.fieldNames().forEachRemaining(keys::add);
                            for (String key : keys) {
                                if (settingsOnly.get(key).isNull()) {
                                    settingsOnly.set(key, settingsOnly.objectNode());
                                }
                            }
                            channels = channels(ctxt, name, settingsOnly);
                            value = copy;
                        }
                        chat.put(name, new PluginSection(plugin, section(ctxt, name, value, plugin.settingsType()), channels));
                    }
                }
            }
            return new PlatformsConfig(api, chat, webhook, webchat);
        }

        private static Map<String, ChannelConfig> channels(DeserializationContext ctxt, String name, JsonNode value) throws IOException {
            if (value == null || value.isNull()) {
                return Map.of();
            }
            try {
                return ctxt.readTreeAsValue(value, ctxt.getTypeFactory().constructMapType(LinkedHashMap.class, String.class,
                        ChannelConfig.class));
            } catch (JsonMappingException e) {
                throw JsonMappingException.wrapWithPath(JsonMappingException.wrapWithPath(e, PluginSection.class, CHANNELS),
                        PlatformsConfig.class, name);
            }
        }

        private static <T> T section(DeserializationContext ctxt, String name, JsonNode value, Class<T> type) throws IOException {
            try {
                return ctxt.readTreeAsValue(value, type);
            } catch (JsonMappingException e) {
                throw JsonMappingException.wrapWithPath(e, PlatformsConfig.class, name);
            }
        }
    }
}
