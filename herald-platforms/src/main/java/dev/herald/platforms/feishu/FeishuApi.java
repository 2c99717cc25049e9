package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.Multipart;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The open platform calls the adapter makes, all to the configured base only ({@code https://open.feishu.cn},
 * {@code https://open.larksuite.com} or {@code base_url}): {@code POST /open-apis/auth/v3/tenant_access_token/internal}
 * (the tenant access token, cached until a minute before its {@code expire} and fetched again at once when a call
 * answers code 99991663 or 99991661), {@code GET /open-apis/bot/v3/info} (the bot's open_id, for mention gating),
 * {@code POST /open-apis/im/v1/messages?receive_id_type=chat_id}, {@code POST /open-apis/im/v1/messages/{id}/reply},
 * {@code POST /open-apis/im/v1/images} and {@code /files} (uploads) and
 * {@code GET /open-apis/im/v1/messages/{id}/resources/{key}?type=}. Answers are {@code {"code", "msg", "data"}}, code 0
 * meaning success. The token travels in the Authorization header; the secret and token are masked in every message.
 */
final class FeishuApi {
    /** One answer: the platform's code (0 = ok, -2 = not its JSON) and msg, and the body. */
    record Answer(int status, int code, String msg, JsonNode body) {
        boolean ok() {
            return code == 0;
        }

        JsonNode data() {
            return body.path("data");
        }

        String describe() {
            return "code " + code + ": " + msg;
        }
    }

    /** Invalid (99991663) or missing (99991661) tenant access token: fetched again and the call repeated once. */
    static final Set<Integer> TOKEN_EXPIRED = Set.of(99991663, 99991661);
    static final int RATE_LIMITED = 99991400;

    private final String base;
    private final String appId;
    private final String secret;
    private final FeishuSettings.Timing timing;
    private final Clock clock;
    private final JsonHttp http;
    private final FileDownload files;
    private volatile String token;
    private Instant tokenUntil = Instant.EPOCH;

    FeishuApi(FeishuSettings settings, FeishuSettings.Timing timing, Clock clock) {
        URI api = settings.apiUri();
        this.base = api.toString().replaceAll("/+$", "");
        this.appId = settings.appId();
        this.secret = settings.appSecretValue();
        this.timing = timing;
        this.clock = clock;
        this.http = new JsonHttp(timing.connectTimeout(), java.util.Arrays.asList(secret,
                settings.verificationToken().reveal().orElse(null), settings.encryptKeyValue()));
        this.files = new FileDownload("feishu", Set.copyOf(FileDownload.hostsOf(api)), timing.connectTimeout());
    }

    /** The cached tenant access token, or a new one. */
    synchronized String token() throws IOException {
        if (token != null && clock.instant().isBefore(tokenUntil)) {
            return token;
        }
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("app_id", appId).put("app_secret", secret);
        Answer a = answer(http.post(base + "/open-apis/auth/v3/tenant_access_token/internal", b, Map.of(), timing.requestTimeout()));
        String t = a.body().path("tenant_access_token").asText("");
        if (!a.ok() || t.isEmpty()) {
            throw new TokenRefused(a);
        }
        long seconds = Math.max(120, a.body().path("expire").asLong(7200));
        token = t;
        tokenUntil = clock.instant().plusSeconds(seconds - 60);
        return token;
    }

    /** The platform refused a tenant access token for the app id and secret. */
    static final class TokenRefused extends IOException {
        final transient Answer answer;

        TokenRefused(Answer a) {
            super("tenant_access_token/internal answered " + a.describe(), null);
            this.answer = a;
        }
    }

    private synchronized void forget(String used) {
        if (used.equals(token)) {
            token = null;
        }
    }

    private Map<String, String> auth(String t) {
        return Map.of("Authorization", "Bearer " + t);
    }

    /** Where the long connection goes and how often it pings, from {@code POST /callback/ws/endpoint}. */
    record Endpoint(URI url, int serviceId, Duration pingInterval) {
    }

    /** The endpoint call refused the App ID or App Secret: reconnecting cannot help. */
    static final class EndpointRefused extends IOException {
        EndpointRefused(String message) {
            super(message, null);
        }
    }

    /** Codes of the endpoint call that refuse the app: auth failed (514), forbidden (403), a wrong app id or secret. */
    static final Set<Integer> ENDPOINT_REFUSED = Set.of(514, 403, 10003, 10014);

    /**
     * {@code POST /callback/ws/endpoint} with {@code {"AppID", "AppSecret"}}: the long connection's URL (ws or wss; its
     * query names the {@code service_id} that pings carry) and its ping interval. A refusal of the credentials is
     * {@link EndpointRefused}; a busy platform, an answer without a usable URL or a transport failure is an IOException.
     */
    Endpoint wsEndpoint() throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("AppID", appId).put("AppSecret", secret);
        Answer a = answer(http.post(base + "/callback/ws/endpoint", b, Map.of("locale", "zh"), timing.requestTimeout()));
        if (ENDPOINT_REFUSED.contains(a.code())) {
            throw new EndpointRefused("feishu - the open platform refused a long connection for " + appId + " (" + a.describe()
                    + "); check platforms.feishu.app_id and platforms.feishu.app_secret, and that the app receives events through the "
                    + "long connection (Events & Callbacks > Mode of event subscription)");
        }
        if (!a.ok()) {
            throw new IOException("the long-connection endpoint answered " + a.describe() + (a.code() == 1000040350
                    ? " (too many connections for this app)" : ""));
        }
        String url = a.data().path("URL").asText("");
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException("the long-connection endpoint answered a URL that is not one");
        }
        if (!("wss".equals(uri.getScheme()) || "ws".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IOException("the long-connection endpoint answered no ws(s) URL");
        }
        int service = 0;
        for (String pair : uri.getRawQuery() == null ? new String[0] : uri.getRawQuery().split("&")) {
            if (pair.startsWith("service_id=")) {
                try {
                    service = Integer.parseInt(pair.substring("service_id=".length()));
                } catch (NumberFormatException e) {
                    throw new IOException("the long-connection URL's service_id is not a number");
                }
            }
        }
        long ping = a.data().path("ClientConfig").path("PingInterval").asLong(120);
        return new Endpoint(uri, service, Duration.ofSeconds(ping < 1 || ping > 3600 ? 120 : ping));
    }

    /** {@code GET /open-apis/bot/v3/info}: the bot's {@code open_id} and name under {@code bot}. */
    Answer botInfo() throws IOException {
        return withToken(t -> answer(http.send(base + "/open-apis/bot/v3/info", "GET", "application/json", new byte[0], auth(t),
                timing.requestTimeout())));
    }

    /** A new message in chat {@code chatId}. */
    Answer send(String chatId, String msgType, String content, String uuid) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("receive_id", chatId).put("msg_type", msgType).put("content", content)
                .put("uuid", uuid);
        return withToken(t -> answer(http.post(base + "/open-apis/im/v1/messages?receive_id_type=chat_id", b, auth(t), timing.requestTimeout())));
    }

    /** A reply to {@code messageId}, in its thread when {@code inThread}. */
    Answer reply(String messageId, String msgType, String content, boolean inThread, String uuid) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("msg_type", msgType).put("content", content).put("uuid", uuid);
        if (inThread) {
            b.put("reply_in_thread", true);
        }
        return withToken(t -> answer(http.post(base + "/open-apis/im/v1/messages/" + enc(messageId) + "/reply", b, auth(t),
                timing.requestTimeout())));
    }

    /** {@code POST /open-apis/im/v1/images} (image_type message); the key is {@code data.image_key}. */
    Answer uploadImage(String fileName, String mimeType, byte[] bytes) throws IOException {
        Multipart form = new Multipart().field("image_type", "message").file("image", fileName, mimeType, bytes);
        return withToken(t -> answer(http.postMultipart(base + "/open-apis/im/v1/images", form, auth(t), timing.requestTimeout())));
    }

    /** {@code POST /open-apis/im/v1/files} with {@code fileType} (opus, mp4, pdf, doc, xls, ppt, stream); the key is {@code data.file_key}. */
    Answer uploadFile(String fileType, String fileName, String mimeType, byte[] bytes) throws IOException {
        Multipart form = new Multipart().field("file_type", fileType).field("file_name", fileName).file("file", fileName, mimeType, bytes);
        return withToken(t -> answer(http.postMultipart(base + "/open-apis/im/v1/files", form, auth(t), timing.requestTimeout())));
    }

    /**
     * The bytes of a message's image or file, at most {@code maxBytes}, from the base's host only. The platform answers a
     * refused token with a non-200 status; the token is fetched again and the download tried once more.
     */
    MediaFetcher.Fetched resource(String messageId, String key, String type, long maxBytes) throws IOException {
        String url = base + "/open-apis/im/v1/messages/" + enc(messageId) + "/resources/" + enc(key) + "?type=" + enc(type);
        String t = token();
        try {
            return files.get(url, auth(t), maxBytes, timing.requestTimeout());
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("HTTP 4")) {
                throw e;
            }
            forget(t);
            return files.get(url, auth(token()), maxBytes, timing.requestTimeout());
        }
    }

    private interface Call {
        Answer with(String token) throws IOException;
    }

    private Answer withToken(Call call) throws IOException {
        String t = token();
        Answer a = call.with(t);
        if (TOKEN_EXPIRED.contains(a.code())) {
            forget(t);
            a = call.with(token());
        }
        return a;
    }

    private Answer answer(JsonHttp.Reply r) {
        JsonNode b = r.body();
        if (!b.path("code").isNumber()) {
            return new Answer(r.status(), r.ok() ? -2 : -3, "HTTP " + r.status() + " without the platform's code", b);
        }
        String msg = b.path("msg").asText("");
        String t = token;
        msg = http.redact(msg.length() > 300 ? msg.substring(0, 300) + "..." : msg);
        if (t != null) {
            msg = msg.replace(t, "****");
        }
        return new Answer(r.status(), b.path("code").asInt(), msg, b);
    }

    String describe(IOException e) {
        String text = http.describe(e);
        String t = token;
        return t == null ? text : text.replace(t, "****");
    }

    /**
     * What a failed call means, by the platform's code: 99991400 (rate limit) and HTTP 429 wait and are tried again,
     * HTTP 5xx and answers that are not the platform's too; a token still refused after a fresh one, and 10003/10014 (a
     * wrong app id or secret), fail for good naming the keys; 230002 (the bot is not in the chat) and 230013 (the user
     * cannot see the bot) fail for good with what to do.
     */
    SendResult failure(String what, Answer a) {
        int code = a.code();
        if (code == RATE_LIMITED || a.status() == 429) {
            return SendResult.rateLimited("feishu - " + what + ": rate limited (" + a.describe() + ")", timing.busyWait());
        }
        if (TOKEN_EXPIRED.contains(code) || code == 10003 || code == 10014) {
            return SendResult.failed("feishu - " + what + ": the tenant access token or app secret was rejected (" + a.describe()
                    + "); check platforms.feishu.app_id and platforms.feishu.app_secret", false);
        }
        if (code == 230002 || code == 230013) {
            return SendResult.failed("feishu - " + what + ": the bot is not in this chat or the user cannot see it (" + a.describe() + ")", false);
        }
        boolean transient_ = a.status() >= 500 || code == -3 || code == -2;
        return SendResult.failed("feishu - " + what + ": " + a.describe(), transient_);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    void close() {
        // JsonHttp and FileDownload hold no resources beyond their clients, which the JVM reclaims
    }

    static List<String> fileTypes() {
        return List.of("opus", "mp4", "pdf", "doc", "xls", "ppt", "stream");
    }
}
