package dev.herald.platforms.wecom;

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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The WeCom server API calls the adapter makes: {@code GET cgi-bin/gettoken?corpid&corpsecret} (the access token,
 * cached until a minute before its {@code expires_in} and fetched again at once when a call answers errcode 40014 or
 * 42001), {@code POST cgi-bin/message/send}, {@code POST cgi-bin/media/upload?type=} and {@code GET cgi-bin/media/get}.
 * Every call goes to the configured {@code api_base} only. WeCom answers {@code {"errcode", "errmsg", ...}}, errcode 0
 * meaning success; the access token travels in the query as WeCom requires, so no URL ever reaches a log or an error
 * (the client's messages have the token and the secret masked).
 */
final class WeComApi {
    /** One answer: WeCom's errcode (0 = ok, -2 = not WeCom's JSON) and errmsg, and the body. */
    record Answer(int status, int errcode, String errmsg, JsonNode body) {
        boolean ok() {
            return errcode == 0;
        }

        String describe() {
            return "errcode " + errcode + ": " + errmsg;
        }
    }

    private static final Set<Integer> TOKEN_EXPIRED = Set.of(40014, 42001);

    private final String base;
    private final String corpId;
    private final String secret;
    private final WeComSettings.Timing timing;
    private final Clock clock;
    private final JsonHttp http;
    private final HttpClient getClient;
    private final FileDownload files;
    private String token;
    private Instant tokenUntil = Instant.EPOCH;

    WeComApi(WeComSettings settings, WeComSettings.Timing timing, Clock clock) {
        URI api = settings.apiUri();
        this.base = api.toString().replaceAll("/+$", "");
        this.corpId = settings.corpId();
        this.secret = settings.corpSecretValue();
        this.timing = timing;
        this.clock = clock;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(secret, settings.tokenValue(), settings.encodingAesKeyValue()));
        this.getClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timing.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.files = new FileDownload("wecom", Set.copyOf(FileDownload.hostsOf(api)), timing.connectTimeout());
    }

    /** The cached access token, or a new one from {@code gettoken}. */
    synchronized String token() throws IOException {
        if (token != null && clock.instant().isBefore(tokenUntil)) {
            return token;
        }
        Answer a = get(base + "/cgi-bin/gettoken?corpid=" + enc(corpId) + "&corpsecret=" + enc(secret));
        String t = a.body().path("access_token").asText("");
        if (!a.ok() || t.isEmpty()) {
            throw new TokenRefused(a);
        }
        long seconds = Math.max(60, a.body().path("expires_in").asLong(7200));
        token = t;
        tokenUntil = clock.instant().plusSeconds(seconds - 60);
        return token;
    }

    /** {@code gettoken} refused the corp id or the secret (40001, 40013, ...). */
    static final class TokenRefused extends IOException {
        final transient Answer answer;

        TokenRefused(Answer a) {
            super("gettoken answered " + a.describe(), null);
            this.answer = a;
        }
    }

    private synchronized void forget(String used) {
        if (used.equals(token)) {
            token = null;
        }
    }

    /** {@code POST cgi-bin/message/send} with {@code body}; the token is fetched again once when WeCom says it expired. */
    Answer send(ObjectNode body) throws IOException {
        return withToken(t -> answer(http.post(base + "/cgi-bin/message/send?access_token=" + enc(t), body, Map.of(), timing.requestTimeout())));
    }

    /** {@code POST cgi-bin/media/upload?type=} with the file as the form's {@code media}; the id is {@code media_id}. */
    Answer upload(String type, String fileName, String mimeType, byte[] bytes) throws IOException {
        Multipart form = new Multipart().file("media", fileName, mimeType, bytes);
        return withToken(t -> answer(http.postMultipart(base + "/cgi-bin/media/upload?access_token=" + enc(t) + "&type=" + enc(type), form,
                Map.of(), timing.requestTimeout())));
    }

    /**
     * {@code GET cgi-bin/media/get?media_id=}: the file's bytes, at most {@code maxBytes}, from api_base's host only. WeCom
     * answers an error as JSON with an errcode instead of the file.
     */
    MediaFetcher.Fetched media(String mediaId, long maxBytes) throws IOException {
        for (int attempt = 0; ; attempt++) {
            String t = token();
            MediaFetcher.Fetched f = files.get(base + "/cgi-bin/media/get?access_token=" + enc(t) + "&media_id=" + enc(mediaId), Map.of(),
                    maxBytes, timing.requestTimeout());
            String type = f.mimeType() == null ? "" : f.mimeType().toLowerCase(java.util.Locale.ROOT);
            if (type.startsWith("application/json") || type.startsWith("text/plain") && f.bytes().length < 4096) {
                Answer a = answer(new JsonHttp.Reply(200, parse(f.bytes()), Map.of()));
                if (!a.ok() && a.errcode() != -2) {
                    if (TOKEN_EXPIRED.contains(a.errcode()) && attempt == 0) {
                        forget(t);
                        continue;
                    }
                    throw new IOException("wecom - media/get for " + mediaId + " answered " + a.describe());
                }
            }
            return f;
        }
    }

    private interface Call {
        Answer with(String token) throws IOException;
    }

    private Answer withToken(Call call) throws IOException {
        String t = token();
        Answer a = call.with(t);
        if (TOKEN_EXPIRED.contains(a.errcode())) {
            forget(t);
            a = call.with(token());
        }
        return a;
    }

    private Answer get(String url) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timing.requestTimeout()).GET().build();
        HttpResponse<byte[]> r;
        try {
            r = getClient.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the WeCom API");
        } catch (IOException | RuntimeException e) {
            throw new IOException(http.describe(e));
        }
        return answer(new JsonHttp.Reply(r.statusCode(), parse(r.body()), r.headers().map()));
    }

    private static JsonNode parse(byte[] body) {
        try {
            JsonNode n = body.length == 0 ? null : JsonHttp.JSON.readTree(body);
            return n == null ? JsonHttp.JSON.missingNode() : n;
        } catch (IOException e) {
            return JsonHttp.JSON.missingNode();
        }
    }

    private Answer answer(JsonHttp.Reply r) {
        JsonNode b = r.body();
        if (!b.path("errcode").isNumber()) {
            return new Answer(r.status(), r.ok() ? -2 : -3, "HTTP " + r.status() + " without WeCom's errcode", b);
        }
        String msg = b.path("errmsg").asText("");
        msg = http.redact(msg.length() > 300 ? msg.substring(0, 300) + "..." : msg);
        return new Answer(r.status(), b.path("errcode").asInt(), msg, b);
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    /**
     * What a failed call means, by WeCom's errcode: -1 (system busy) and HTTP failures are tried again after
     * {@code busy_wait}, 45009 (API rate limit) and 45033 (too many at once) wait and are tried again, 40014/42001 left
     * after a fresh token and 40001 (a wrong secret) fail for good naming the key, 81013 (the user is not in the app's
     * visible range) too.
     */
    SendResult failure(String what, Answer a) {
        int code = a.errcode();
        if (code == 45009 || code == 45033 || a.status() == 429) {
            return SendResult.rateLimited("wecom - " + what + ": rate limited (" + a.describe() + ")", timing.busyWait().multipliedBy(5));
        }
        if (code == -1) {
            return SendResult.rateLimited("wecom - " + what + ": WeCom is busy (" + a.describe() + ")", timing.busyWait());
        }
        if (code == 40001 || code == 40013 || TOKEN_EXPIRED.contains(code)) {
            return SendResult.failed("wecom - " + what + ": the access token or secret was rejected (" + a.describe()
                    + "); check platforms.wecom.corp_id and platforms.wecom.corp_secret", false);
        }
        if (code == 81013 || code == 60111) {
            return SendResult.failed("wecom - " + what + ": the user is not in the app's visible range or does not exist (" + a.describe()
                    + ")", false);
        }
        boolean transient_ = a.status() >= 500 || code == -3 || code == -2;
        return SendResult.failed("wecom - " + what + ": " + a.describe(), transient_);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    void close() {
        getClient.close();
    }
}
