package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The DingTalk OpenAPI calls Herald makes, all on the configured {@code api_base}: {@code POST
 * v1.0/gateway/connections/open} (a Stream endpoint and a single-use ticket), {@code POST v1.0/oauth2/accessToken}
 * (cached until a minute before its {@code expireIn}, fetched again once when a call answers 401), the robot sends
 * {@code v1.0/robot/oToMessages/batchSend} and {@code v1.0/robot/groupMessages/send} (header
 * {@code x-acs-dingtalk-access-token}), {@code v1.0/robot/messageFiles/download} (a download code to a URL), and, on
 * the older {@code oapi_base}, {@code media/upload} for the agent's files.
 * A message's {@code sessionWebhook} is POSTed to only when its host is DingTalk's ({@code oapi.dingtalk.com}) or the
 * api_base's. The client's messages have the secret and tokens masked; no URL reaches a log (a webhook or a ticket
 * URL carries a credential).
 */
final class DingTalkApi {
    static final String BOT_TOPIC = "/v1.0/im/bot/messages/get";
    /** The host DingTalk's session webhooks are on. */
    static final String WEBHOOK_HOST = "oapi.dingtalk.com";

    /** One answer: HTTP status and body; DingTalk's new API says failure by status plus {@code code}/{@code message}. */
    record Answer(int status, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String describe() {
            String code = body.path("code").asText("");
            String message = body.path("message").asText("");
            if (message.length() > 200) {
                message = message.substring(0, 200) + "...";
            }
            return "HTTP " + status + (code.isEmpty() ? "" : " " + code) + (message.isEmpty() ? "" : ": " + message);
        }
    }

    /** DingTalk refused the app's credentials: Herald cannot go on without a configuration change. */
    static final class Refused extends IOException {
        Refused(String message) {
            super(message, null);
        }
    }

    private final DingTalkSettings settings;
    private final DingTalkSettings.Timing timing;
    private final Clock clock;
    private final String base;
    private final String oapi;
    private final JsonHttp http;
    private final FileDownload files;
    private final Set<String> webhookHosts = new HashSet<>();
    private String token;
    private Instant tokenUntil = Instant.EPOCH;
    /** Access tokens fetched so far (tests read it to see the cache work). */
    volatile int tokensFetched;

    DingTalkApi(DingTalkSettings settings, DingTalkSettings.Timing timing, Clock clock) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        URI api = settings.apiUri();
        this.base = api.toString();
        this.oapi = settings.oapiUri().toString();
        this.http = new JsonHttp(timing.connectTimeout(), List.of(settings.secretValue()));
        this.files = new FileDownload("dingtalk", new HashSet<>(settings.fileHosts()), timing.connectTimeout());
        webhookHosts.add(WEBHOOK_HOST);
        webhookHosts.add(FileDownload.host(api));
        settings.extraFileHosts().forEach(h -> webhookHosts.add(h.strip().toLowerCase(Locale.ROOT)));
    }

    /** Asks for a Stream connection; the WebSocket URL with its ticket. */
    URI openConnection() throws IOException {
        ObjectNode body = JsonHttp.JSON.createObjectNode().put("clientId", settings.clientId()).put("clientSecret", settings.secretValue())
                .put("ua", "herald");
        body.putArray("subscriptions").addObject().put("type", "CALLBACK").put("topic", BOT_TOPIC);
        Answer a = answer(http.post(base + "/v1.0/gateway/connections/open", body, Map.of(), timing.requestTimeout()));
        if (a.status() == 400 || a.status() == 401 || a.status() == 403) {
            throw new Refused("dingtalk - DingTalk refused to open a Stream connection (" + a.describe()
                    + "); check platforms.dingtalk.client_id and client_secret, and that the robot uses Stream mode");
        }
        String endpoint = a.body().path("endpoint").asText("");
        String ticket = a.body().path("ticket").asText("");
        if (!a.ok() || endpoint.isEmpty() || ticket.isEmpty()) {
            throw new IOException("gateway/connections/open answered " + a.describe() + " without an endpoint and a ticket");
        }
        URI uri;
        try {
            uri = URI.create(endpoint + (endpoint.contains("?") ? "&" : "?") + "ticket=" + enc(ticket));
        } catch (IllegalArgumentException e) {
            throw new IOException("gateway/connections/open answered an endpoint that is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("wss") && !scheme.equals("ws")) {
            throw new IOException("gateway/connections/open answered an endpoint that is not a WebSocket URL");
        }
        return uri;
    }

    /** The cached access token, or a new one. */
    synchronized String token() throws IOException {
        if (token != null && clock.instant().isBefore(tokenUntil)) {
            return token;
        }
        ObjectNode body = JsonHttp.JSON.createObjectNode().put("appKey", settings.clientId()).put("appSecret", settings.secretValue());
        Answer a = answer(http.post(base + "/v1.0/oauth2/accessToken", body, Map.of(), timing.requestTimeout()));
        String t = a.body().path("accessToken").asText("");
        if (!a.ok() || t.isEmpty()) {
            if (a.status() >= 400 && a.status() < 500) {
                throw new Refused("dingtalk - DingTalk refused an access token (" + a.describe() + "); check platforms.dingtalk.client_id and client_secret");
            }
            throw new IOException("oauth2/accessToken answered " + a.describe());
        }
        long seconds = Math.max(120, a.body().path("expireIn").asLong(7200));
        token = t;
        tokenUntil = clock.instant().plusSeconds(seconds - 60);
        tokensFetched++;
        return t;
    }

    private synchronized void forget(String used) {
        if (used.equals(token)) {
            token = null;
        }
    }

    /** Whether Herald may POST to {@code url}: an http(s) URL on DingTalk's webhook host (or api_base's, for tests). */
    boolean webhookAllowed(String url) {
        try {
            URI u = URI.create(url);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("https") || scheme.equals("http")) && webhookHosts.contains(FileDownload.host(u));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** POSTs {@code body} to a session webhook; DingTalk answers {@code {"errcode":0}} on success. */
    Answer webhook(String url, ObjectNode body) throws IOException {
        return answer(http.post(url, body, Map.of(), timing.requestTimeout()));
    }

    /** {@code oToMessages/batchSend} to one user, or {@code groupMessages/send} to a group, with {@code msgKey} and its params. */
    Answer robotSend(boolean group, String to, String msgKey, ObjectNode msgParam) throws IOException {
        ObjectNode body = JsonHttp.JSON.createObjectNode().put("robotCode", settings.robot()).put("msgKey", msgKey)
                .put("msgParam", msgParam.toString());
        String path;
        if (group) {
            body.put("openConversationId", to);
            path = "/v1.0/robot/groupMessages/send";
        } else {
            body.putArray("userIds").add(to);
            path = "/v1.0/robot/oToMessages/batchSend";
        }
        return withToken(t -> answer(http.post(base + path, body, Map.of("x-acs-dingtalk-access-token", t), timing.requestTimeout())));
    }

    /**
     * {@code POST oapi/media/upload?access_token=&type=} (image, voice or file) with the bytes as the form's {@code media};
     * the id is {@code media_id}. The older API says failure by {@code errcode}; an expired token (40014, 42001) is
     * fetched again once.
     */
    Answer upload(String type, String fileName, String mimeType, byte[] bytes) throws IOException {
        dev.herald.platforms.common.Multipart form = new dev.herald.platforms.common.Multipart().file("media", fileName, mimeType, bytes);
        Call call = t -> answer(http.postMultipart(oapi + "/media/upload?access_token=" + enc(t) + "&type=" + enc(type), form, Map.of(),
                timing.requestTimeout()));
        String t = token();
        Answer a = call.with(t);
        int code = a.body().path("errcode").asInt(0);
        if (a.status() == 401 || code == 40014 || code == 42001) {
            forget(t);
            a = call.with(token());
        }
        return a;
    }

    /** A file's bytes by its {@code downloadCode}: a URL from {@code messageFiles/download}, fetched from an allowed host only. */
    MediaFetcher.Fetched download(String downloadCode, long maxBytes) throws IOException {
        ObjectNode body = JsonHttp.JSON.createObjectNode().put("downloadCode", downloadCode).put("robotCode", settings.robot());
        Answer a = withToken(t -> answer(http.post(base + "/v1.0/robot/messageFiles/download", body, Map.of("x-acs-dingtalk-access-token", t),
                timing.requestTimeout())));
        String url = a.body().path("downloadUrl").asText("");
        if (!a.ok() || url.isEmpty()) {
            throw new IOException("dingtalk - messageFiles/download answered " + a.describe());
        }
        return files.get(url, Map.of(), maxBytes, timing.requestTimeout());
    }

    private interface Call {
        Answer with(String token) throws IOException;
    }

    private Answer withToken(Call call) throws IOException {
        String t = token();
        Answer a = call.with(t);
        if (a.status() == 401) {
            forget(t);
            a = call.with(token());
        }
        return a;
    }

    private Answer answer(JsonHttp.Reply r) {
        return new Answer(r.status(), r.body());
    }

    /** What a failed send means: 429 and 5xx are tried again, 4xx are not. */
    SendResult failure(String what, Answer a) {
        if (a.status() == 429 || a.body().path("code").asText("").contains("QpsLimit")) {
            return SendResult.rateLimited("dingtalk - " + what + ": rate limited (" + http.redact(a.describe()) + ")", java.time.Duration.ofSeconds(2));
        }
        return SendResult.failed("dingtalk - " + what + ": " + http.redact(a.describe()), a.status() >= 500 || a.status() == 0);
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
