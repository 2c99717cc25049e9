package dev.herald.core.session;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a chat chose for itself with a command ({@code /voice tts}, ...): small named values, one durable row per lane
 * and name, kept across {@code /new} (a preference belongs to the chat, not to one transcript) and removed when the
 * lane is purged. A lane without a row uses the configured default. Values are stored as given; the reader parses
 * them and falls back to the default on a value it does not know.
 */
public interface ChatPreferences {
    /** The longest name and value stored. */
    int MAX_LENGTH = 200;

    /** The value {@code key} chose for {@code name}, if any. */
    Optional<String> get(SessionKey key, String name);

    /** Records {@code value} for {@code name} in the chat of {@code key}; null clears it (back to the default). */
    void set(SessionKey key, String name, String value);

    /** Refuses a name or value no store keeps (empty, too long). */
    static void check(String name, String value) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.length() > MAX_LENGTH || (value != null && value.length() > MAX_LENGTH)) {
            throw new IllegalArgumentException("store - a chat preference's name and value are 1 to " + MAX_LENGTH + " characters");
        }
    }

    /** Preferences in memory only (tests, and stores without the table). */
    static ChatPreferences inMemory() {
        Map<String, String> values = new ConcurrentHashMap<>();
        return new ChatPreferences() {
            @Override
            public Optional<String> get(SessionKey key, String name) {
                return Optional.ofNullable(values.get(key.value() + "\n" + name));
            }

            @Override
            public void set(SessionKey key, String name, String value) {
                check(name, value);
                if (value == null) {
                    values.remove(key.value() + "\n" + name);
                } else {
                    values.put(key.value() + "\n" + name, value);
                }
            }
        };
    }
}
