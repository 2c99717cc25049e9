package dev.herald.agent.persona;

import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured personas ({@code personalities:}) and which one each chat chose with {@code /personality}. A chat's
 * choice is a chat preference named {@value #PREFERENCE} (durable, kept across {@code /new}); a chat without one, or
 * whose persona was removed from the configuration since (logged), has none and runs on the configured system prompt
 * alone.
 */
public final class Personas {
    private static final Logger log = LoggerFactory.getLogger(Personas.class);
    /** The chat preference that holds the chosen persona's name. */
    public static final String PREFERENCE = "personality";

    /**
     * One persona.
     *
     * @param systemPrompt added after the model profile's system prompt on every call of the chat's turns
     * @param model        the model profile the chat's turns use (unless the chat chose /model since), or null for the chat's
     */
    public record Persona(String name, String systemPrompt, String model) {
        public Persona {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(systemPrompt, "systemPrompt");
            model = model == null || model.isBlank() ? null : model;
        }
    }

    private final Map<String, Persona> all;
    private final ChatPreferences preferences;

    /** @param all the personas by name, in the order they are listed */
    public Personas(Map<String, Persona> all, ChatPreferences preferences) {
        this.all = Collections.unmodifiableMap(new LinkedHashMap<>(all));
        this.preferences = Objects.requireNonNull(preferences, "preferences");
    }

    /** No personas: every chat runs on the configured system prompt. */
    public static Personas none() {
        return new Personas(Map.of(), ChatPreferences.inMemory());
    }

    /** The personas by name, in configuration order. */
    public Map<String, Persona> all() {
        return all;
    }

    ChatPreferences preferences() {
        return preferences;
    }

    /** The persona the chat of {@code key} chose, when it is still configured. */
    public Optional<Persona> of(SessionKey key) {
        Optional<String> chosen = preferences.get(key, PREFERENCE);
        if (chosen.isEmpty()) {
            return Optional.empty();
        }
        Persona p = all.get(chosen.get());
        if (p == null) {
            log.warn("persona - {} chose personality '{}', which is no longer configured; using none", key, chosen.get());
        }
        return Optional.ofNullable(p);
    }
}
