package dev.herald.core.side;

import dev.herald.core.lanes.BusyPolicy;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each chat's busy mode ({@code /busy}): what a message sent while a turn runs does there. A chat that chose one keeps it
 * as a chat preference (across {@code /new} and restarts); any other chat follows the gateway's busy policy.
 */
public final class BusyModes {
    private static final Logger log = LoggerFactory.getLogger(BusyModes.class);
    /** The chat preference's name. */
    public static final String PREFERENCE = "busy";

    private final ChatPreferences preferences;
    private final BusyPolicy fallback;

    public BusyModes(ChatPreferences preferences, BusyPolicy fallback) {
        this.preferences = Objects.requireNonNull(preferences, "preferences");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
    }

    /** The mode of the chat of {@code key}: its own choice, else the gateway's policy. */
    public BusyPolicy of(SessionKey key) {
        try {
            return chosen(key).orElse(fallback);
        } catch (RuntimeException e) {
            log.warn("gateway - could not read the busy mode of {} ({}); using the gateway's ({})", key, e.toString(), fallback.code());
            return fallback;
        }
    }

    /** The mode the chat chose, if it chose one this version knows. */
    public Optional<BusyPolicy> chosen(SessionKey key) {
        return preferences.get(key, PREFERENCE).flatMap(BusyModes::parse);
    }

    /** The gateway's policy, for chats that chose none. */
    public BusyPolicy fallback() {
        return fallback;
    }

    /** Records the chat's mode. */
    public void choose(SessionKey key, BusyPolicy mode) {
        preferences.set(key, PREFERENCE, mode.code());
    }

    /** The mode named {@code text} ({@code queue}, {@code steer}, {@code interrupt}; case does not matter). */
    public static Optional<BusyPolicy> parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (BusyPolicy p : BusyPolicy.values()) {
            if (p.code().equals(t)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
