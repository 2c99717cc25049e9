package dev.herald.core.session;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The model profile each conversation lane chose with {@code /model}: one durable row per lane that chose one,
 * kept across {@code /new} (the choice belongs to the chat, not to one transcript). A lane without a row uses the
 * default profile. Names are stored as given; a name that no longer exists in the configuration is the reader's
 * to handle (it falls back to the default and says so).
 */
public interface ModelChoiceStore {

    /** The profile chosen for {@code key}, if any. */
    Optional<String> chosen(SessionKey key);

    /** Records {@code profile} for {@code key}; null clears the choice (back to the default). */
    void choose(SessionKey key, String profile);

    /** A store in memory only (tests, and stores without the table). */
    static ModelChoiceStore inMemory() {
        Map<String, String> choices = new ConcurrentHashMap<>();
        return new ModelChoiceStore() {
            @Override
            public Optional<String> chosen(SessionKey key) {
                return Optional.ofNullable(choices.get(key.value()));
            }

            @Override
            public void choose(SessionKey key, String profile) {
                if (profile == null) {
                    choices.remove(key.value());
                } else {
                    choices.put(key.value(), profile);
                }
            }
        };
    }
}
