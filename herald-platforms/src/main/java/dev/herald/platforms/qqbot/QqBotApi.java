package dev.herald.platforms.qqbot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QQ open platform's REST API as Herald uses it: the access token ({@code POST getAppAccessToken} with the AppID and
 * AppSecret; cached, renewed {@link QqBotSettings.Timing#tokenMargin} before it expires, and fetched anew once when the API
 * answers 401), the gateway URL, passive replies to one-to-one chats and groups, and rich-media uploads.
 *
 * <p>Every call carries {@code Authorization: QQBot <token>}. Nothing this class logs or returns names the token or the
 * secret ({@link JsonHttp} masks both).
 */
final class QqBotApi {
    private static final Logger log = LoggerFactory.getLogger(QqBotApi.class);
    /** QQ's code for a reply whose msg_id and msg_seq were used already ("消息被去重"). */
    static final int CODE_DUPLICATE = 40054005;

    private final QqBotSettings settings;
    private final QqBotSettings.Timing timing;
    private final Clock clock;
    private final JsonHttp http;
    private String token;
    private Instant renewAt = Instant.MIN;

    QqBotApi(QqBotSettings settings, QqBotSettings.Timing timing, Clock clock) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(settings.clientSecret().reveal().orElse("")));
    }

    /** The current access token, fetched when there is none or it is due for renewal. */
    synchronized String token() throws IOException {
        if (token != null && clock.instant().isBefore(renewAt)) {
            return token;
        }
        JsonHttp.Reply r = http.post(settings.tokenUrl(), Map.of("appId", settings.appId(), "clientSecret", settings.secretValue()), Map.of(),
                timing.requestTimeout());
        String fresh = r.body().path("access_token").asText("");
        if (r.status() >= 500 || r.status() == 429) {
            throw new IOException("the token endpoint answered HTTP " + r.status());
        }
        if (!r.ok() || fresh.isEmpty()) {
            throw new TokenRefused("the access token was refused (HTTP " + r.status() + ", code " + r.body().path("code").asText("-")
                    + "); check platforms.qqbot.app_id and platforms.qqbot.client_secret");
        }
        long seconds = parseSeconds(r.body().path("expires_in"));
        token = fresh;
        renewAt = clock.instant().plusSeconds(seconds).minus(timing.tokenMargin());
        log.info("qqbot - access token fetched; valid for {} s", seconds);
        return token;
    }

    /** The token endpoint refused the AppID and AppSecret: trying again will not help. */
    static final class TokenRefused extends IOException {
        TokenRefused(String message) {
            super(message);
        }
    }

    /** Forgets the cached token {@code used} (the API answered 401), or any (null): the next call fetches another. */
    synchronized void invalidate(String used) {
        if (used == null || used.equals(token)) {
            token = null;
        }
    }

    /** {@code expires_in} is a string of seconds in QQ's answer ("7200"); a number is taken too; anything else is 60 s. */
    static long parseSeconds(JsonNode n) {
        try {
            long s = n.isNumber() ? n.asLong() : Long.parseLong(n.asText("").strip());
            return s > 0 ? s : 60;
        } catch (NumberFormatException e) {
            return 60;
        }
    }

    /** The WebSocket URL from {@code GET /gateway}. */
    String gatewayUrl() throws IOException {
        JsonHttp.Reply r = call("GET", "/gateway", null);
        String url = r.body().path("url").asText("");
        if (!r.ok() || url.isEmpty()) {
            throw new IOException("GET /gateway answered HTTP " + r.status() + " without a url (code " + r.body().path("code").asText("-") + ")");
        }
        return url;
    }

    /** What QQ answered a send: the HTTP status, QQ's error code (0 for none), its message and the new message's id. */
    record Answer(int status, long code, String message, String id, Duration retryAfter, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300 && code == 0;
        }

        boolean duplicate() {
            return code == CODE_DUPLICATE;
        }

        SendResult failure(String what) {
            String text = "qqbot - " + what + " refused (HTTP " + status + (code != 0 ? ", code " + code : "") + (message.isEmpty() ? ""
                    : ": " + message) + ")";
            if (status == 429) {
                return SendResult.rateLimited(text, retryAfter);
            }
            return SendResult.failed(text, status >= 500 || status == 0 || status == 401);
        }
    }

    /** POSTs {@code body} to {@code path} (a message or a file upload) and reads QQ's answer. */
    Answer post(String path, ObjectNode body) {
        try {
            JsonHttp.Reply r = call("POST", path, body);
            JsonNode b = r.body();
            long code = b.path("code").asLong(0);
            if (r.ok() && b.has("code") && code != 0 && !b.has("id")) {
                return new Answer(r.status(), code, b.path("message").asText(""), null, null, b);
            }
            Duration retry = r.header("Retry-After").map(QqBotApi::seconds).orElse(null);
            return new Answer(r.status(), r.ok() ? 0 : code, b.path("message").asText(""), b.path("id").asText(null), retry, b);
        } catch (IOException e) {
            return new Answer(0, 0, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), null, null,
                    com.fasterxml.jackson.databind.node.MissingNode.getInstance());
        }
    }

    private JsonHttp.Reply call(String method, String path, Object body) throws IOException {
        String used = token();
        JsonHttp.Reply r = once(method, path, body, used);
        if (r.status() == 401) {
            log.info("qqbot - {} {} answered 401; fetching a new access token and trying once more", method, path);
            invalidate(used);
            r = once(method, path, body, token());
        }
        return r;
    }

    private JsonHttp.Reply once(String method, String path, Object body, String bearer) throws IOException {
        Map<String, String> headers = Map.of("Authorization", "QQBot " + bearer, "X-Union-Appid", settings.appId());
        String url = settings.apiUri() + path;
        if (body == null) {
            return http.send(url, method, "application/json", new byte[0], headers, timing.requestTimeout());
        }
        return http.post(url, body, headers, timing.requestTimeout());
    }

    private static Duration seconds(String value) {
        try {
            return Duration.ofMillis((long) (Double.parseDouble(value.strip()) * 1000));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
