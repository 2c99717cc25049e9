package dev.herald.platforms.weixin;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Weixin adapter connects. Built once by the wiring from {@code platforms.weixin}.
 *
 * @param apiBase        iLink bot API root ({@code https://ilinkai.weixin.qq.com})
 * @param token          the bot token obtained by scanning the iLink login QR code (masked in {@link #toString()})
 * @param stateFile      where the getupdates cursor and the latest context token per chat are kept across
 *                       restarts; null keeps them in memory only
 * @param pollWait       how long the client waits for one long poll (the server answers within ~35 s)
 * @param firstPollWait  how long start waits for the first poll before reporting the platform connected
 * @param idlePollDelay  pause after an empty poll that came back early
 * @param reconnectFirst first delay after a failed poll; doubles up to {@code reconnectMax}, with jitter
 * @param reconnectMax   longest delay between reconnection attempts
 */
public record WeixinSettings(
        String apiBase, String token, Path stateFile, Duration pollWait, Duration firstPollWait, Duration idlePollDelay,
        Duration reconnectFirst, Duration reconnectMax) {

    public static final String DEFAULT_API_BASE = "https://ilinkai.weixin.qq.com";

    public WeixinSettings {
        Objects.requireNonNull(apiBase, "apiBase");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(pollWait, "pollWait");
        Objects.requireNonNull(firstPollWait, "firstPollWait");
        Objects.requireNonNull(idlePollDelay, "idlePollDelay");
        Objects.requireNonNull(reconnectFirst, "reconnectFirst");
        Objects.requireNonNull(reconnectMax, "reconnectMax");
    }

    /** Production defaults: 40 s client wait per poll, 5 s for the first, reconnect from 1 s to 60 s. */
    public static WeixinSettings of(String apiBase, String token, Path stateFile) {
        return new WeixinSettings(apiBase, token, stateFile, Duration.ofSeconds(40), Duration.ofSeconds(5), Duration.ofMillis(500),
                Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    @Override
    public String toString() {
        return "WeixinSettings[apiBase=" + apiBase + ", token=****, stateFile=" + stateFile + "]";
    }
}
