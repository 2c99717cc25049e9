package dev.herald.platforms.sms;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The opt-out keywords carriers and Twilio define for SMS: a message that is only one of them (any case, surrounding
 * spaces and a final full stop or exclamation mark ignored) is a command to the number, not to the agent.
 * STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT stop all messages; START, YES, UNSTOP resume them; HELP, INFO ask what
 * the number is.
 */
enum SmsKeywords {
    STOP(Set.of("STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT")),
    START(Set.of("START", "YES", "UNSTOP")),
    HELP(Set.of("HELP", "INFO"));

    private final Set<String> words;

    SmsKeywords(Set<String> words) {
        this.words = words;
    }

    /** The keyword {@code body} is, if it is one. */
    static Optional<SmsKeywords> of(String body) {
        String w = body.strip().replaceFirst("[.!]$", "").strip().toUpperCase(Locale.ROOT);
        for (SmsKeywords k : values()) {
            if (k.words.contains(w)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
