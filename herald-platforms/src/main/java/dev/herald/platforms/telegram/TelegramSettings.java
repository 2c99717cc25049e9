package dev.herald.platforms.telegram;

import java.time.Duration;
import java.util.Objects;

/**
 * How the Telegram adapter connects. Built once by the wiring from {@code platforms.telegram}.
 *
 * @param apiBase        Bot API root, {@code https://api.telegram.org} or a self-hosted Bot API server
 * @param token          the bot token from @BotFather (never shown: {@link #toString()} masks it)
 * @param pollWait       how long one getUpdates long poll may be held open by the server
 * @param idlePollDelay  pause after an empty poll that came back early (servers that ignore long-poll timing)
 * @param streaming      show replies while they are written (one message, edited as text arrives)
 * @param editInterval   at most one edit per chat per this interval while streaming
 * @param reconnectFirst first delay after a failed poll; doubles up to {@code reconnectMax}, with jitter
 * @param reconnectMax   longest delay between reconnection attempts
 */
public record TelegramSettings(
        String apiBase, String token, Duration pollWait, Duration idlePollDelay, boolean streaming, Duration editInterval,
        Duration reconnectFirst, Duration reconnectMax) {

    public static final String DEFAULT_API_BASE = "https://api.telegram.org";

    public TelegramSettings {
        Objects.requireNonNull(apiBase, "apiBase");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(pollWait, "pollWait");
        Objects.requireNonNull(idlePollDelay, "idlePollDelay");
        Objects.requireNonNull(editInterval, "editInterval");
        Objects.requireNonNull(reconnectFirst, "reconnectFirst");
        Objects.requireNonNull(reconnectMax, "reconnectMax");
    }

    /** Production defaults: 25 s long polls, 1 s edit throttle, reconnect from 1 s to 60 s. */
    public static TelegramSettings of(String apiBase, String token, boolean streaming) {
        return new TelegramSettings(apiBase, token, Duration.ofSeconds(25), Duration.ofMillis(500), streaming, Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    @Override
    public String toString() {
        return "TelegramSettings[apiBase=" + apiBase + ", token=****, pollWait=" + pollWait + ", streaming=" + streaming + "]";
    }
}
