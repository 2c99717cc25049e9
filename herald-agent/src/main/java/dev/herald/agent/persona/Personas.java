package dev.herald.agent.persona;

import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured personas ({@code personalities:}) and which one each chat chose with {@code /personality}. A chat's
 * choice is a chat preference named {@value #PREFERENCE} (durable, kept across {@code /new}); a chat without one, or
 * whose persona was removed from the configuration since (logged), has none and runs on the configured system prompt
 * alone.
 *
 * <p>A person with a web account keeps one choice for all their chats: {@code /personality} in a chat of theirs (the web
 * chat, over their API key, or a chat linked to the account with {@code /link}) also sets the account's choice, which a
 * chat of theirs that chose none then uses ({@link #of(SessionKey, String)}).
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
    /** The account a chat identity ({@code <platform>:<user id>}) speaks as, if any. */
    private final Function<String, Optional<String>> accounts;

    /** @param all the personas by name, in the order they are listed */
    public Personas(Map<String, Persona> all, ChatPreferences preferences) {
        this(all, preferences, identity -> Optional.empty());
    }

    /** @param accounts the account a chat identity speaks as ({@code Identities#account}), so the choice follows the person */
    public Personas(Map<String, Persona> all, ChatPreferences preferences, Function<String, Optional<String>> accounts) {
        this.all = Collections.unmodifiableMap(new LinkedHashMap<>(all));
        this.preferences = Objects.requireNonNull(preferences, "preferences");
        this.accounts = Objects.requireNonNull(accounts, "accounts");
    }

    /** Where an account's own choice is kept: a preference under a key no chat has. */
    static SessionKey accountKey(String account) {
        return new SessionKey("account:" + account);
    }

    /** The account {@code identity} speaks as, if any. */
    Optional<String> accountOf(String identity) {
        return identity == null ? Optional.empty() : accounts.apply(identity);
    }

    /**
     * The persona of the chat of {@code key} for its sender {@code identity}: the chat's own choice, else the one the
     * sender's account chose in any of its chats.
     */
    public Optional<Persona> of(SessionKey key, String identity) {
        Optional<Persona> own = of(key);
        if (own.isPresent() || preferences.get(key, PREFERENCE).isPresent()) {
            return own;
        }
        return accountOf(identity).flatMap(a -> named(accountKey(a)));
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
        return named(key);
    }

    private Optional<Persona> named(SessionKey key) {
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
