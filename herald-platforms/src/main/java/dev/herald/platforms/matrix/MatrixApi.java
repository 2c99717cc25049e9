package dev.herald.platforms.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Matrix client-server API calls Herald makes, over {@link JsonHttp}: {@code GET /_matrix/client/versions},
 * {@code POST /login} (m.login.password), {@code GET /account/whoami}, {@code GET /profile/{user}/displayname},
 * {@code GET /sync}, {@code POST /join/{room}}, {@code POST /rooms/{room}/leave}, {@code GET /rooms/{room}/joined_members},
 * {@code PUT /rooms/{room}/send/{type}/{txnId}}, {@code PUT /rooms/{room}/typing/{user}} and
 * {@code POST /_matrix/media/v3/upload}. Every call carries {@code Authorization: Bearer <token>} but login and versions.
 *
 * <p>Errors are Matrix's {@code {errcode, error}} with the HTTP status; {@code M_LIMIT_EXCEEDED} carries
 * {@code retry_after_ms}. The token and the password are redacted from every message this class produces; the token is
 * only ever in the Authorization header, never in a URL.
 */
final class MatrixApi {
    static final String CLIENT = "/_matrix/client/v3";

    /** One answer. */
    record Answer(String call, int status, String errcode, String error, Duration retryAfter, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        boolean unknownToken() {
            return "M_UNKNOWN_TOKEN".equals(errcode) || status == 401 && errcode.isEmpty();
        }

        boolean rateLimited() {
            return status == 429 || "M_LIMIT_EXCEEDED".equals(errcode);
        }

        boolean retryable() {
            return rateLimited() || status >= 500 || status == 408;
        }

        /** {@code call HTTP 403 M_FORBIDDEN: text}, without any secret. */
        String problem() {
            return call + " HTTP " + status + (errcode.isEmpty() ? "" : " " + errcode) + (error.isEmpty() ? "" : ": " + error);
        }
    }

    private final String base;
    private final Duration requestTimeout;
    private final List<String> fixedSecrets;
    private volatile String token;
    private volatile JsonHttp http;

    MatrixApi(String base, Duration requestTimeout, String token, String password) {
        this.base = base;
        this.requestTimeout = requestTimeout;
        this.fixedSecrets = password == null ? List.of() : List.of(password);
        useToken(token);
    }

    /** Calls from now on carry {@code t} (null: none yet). */
    void useToken(String t) {
        this.token = t;
        List<String> secrets = new ArrayList<>(fixedSecrets);
        if (t != null) {
            secrets.add(t);
        }
        this.http = new JsonHttp(Duration.ofSeconds(10), secrets);
    }

    boolean hasToken() {
        return token != null;
    }

    String base() {
        return base;
    }

    String token() {
        return token;
    }

    Answer versions() throws IOException {
        return call("versions", "GET", "/_matrix/client/versions", null, requestTimeout, false);
    }

    Answer login(String user, String password, String deviceId) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "m.login.password");
        body.put("identifier", Map.of("type", "m.id.user", "user", user));
        body.put("password", password);
        if (deviceId != null) {
            body.put("device_id", deviceId);
        }
        body.put("initial_device_display_name", "Herald");
        return call("login", "POST", CLIENT + "/login", body, requestTimeout, false);
    }

    Answer whoami() throws IOException {
        return call("whoami", "GET", CLIENT + "/account/whoami", null, requestTimeout, true);
    }

    Answer displayName(String user) throws IOException {
        return call("profile", "GET", CLIENT + "/profile/" + MatrixIds.path(user) + "/displayname", null, requestTimeout, true);
    }

    Answer sync(String since, String filter, Duration wait) throws IOException {
        StringBuilder q = new StringBuilder(CLIENT + "/sync?timeout=" + wait.toMillis() + "&filter=" + query(filter));
        if (since != null) {
            q.append("&since=").append(query(since));
        }
        return call("sync", "GET", q.toString(), null, wait.plus(requestTimeout), true);
    }

    Answer join(String roomOrAlias) throws IOException {
        return call("join", "POST", CLIENT + "/join/" + MatrixIds.path(roomOrAlias), Map.of(), requestTimeout, true);
    }

    Answer leave(String room) throws IOException {
        return call("leave", "POST", CLIENT + "/rooms/" + MatrixIds.path(room) + "/leave", Map.of(), requestTimeout, true);
    }

    Answer joinedMembers(String room) throws IOException {
        return call("joined_members", "GET", CLIENT + "/rooms/" + MatrixIds.path(room) + "/joined_members", null, requestTimeout, true);
    }

    Answer send(String room, String type, String txnId, Object content) throws IOException {
        return call("send", "PUT", CLIENT + "/rooms/" + MatrixIds.path(room) + "/send/" + MatrixIds.path(type) + "/" + MatrixIds.path(txnId),
                content, requestTimeout, true);
    }

    Answer typing(String room, String user, boolean typing, Duration timeout) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("typing", typing);
        if (typing) {
            body.put("timeout", timeout.toMillis());
        }
        return call("typing", "PUT", CLIENT + "/rooms/" + MatrixIds.path(room) + "/typing/" + MatrixIds.path(user), body, requestTimeout, true);
    }

    Answer upload(String fileName, String mimeType, byte[] bytes) throws IOException {
        String url = base + "/_matrix/media/v3/upload?filename=" + query(fileName);
        JsonHttp.Reply r = http.send(url, "POST", mimeType, bytes, auth(), requestTimeout.multipliedBy(4));
        return answer("upload", r);
    }

    /** The authenticated download URL of {@code mxc://server/media}. */
    String downloadUrl(String server, String media) {
        return base + "/_matrix/client/v1/media/download/" + MatrixIds.path(server) + "/" + MatrixIds.path(media);
    }

    Map<String, String> auth() {
        String t = token;
        return t == null ? Map.of() : Map.of("Authorization", "Bearer " + t);
    }

    String describe(Throwable e) {
        return http.describe(e);
    }

    private Answer call(String name, String method, String path, Object body, Duration timeout, boolean authorized) throws IOException {
        byte[] bytes = body == null ? new byte[0] : JsonHttp.JSON.writeValueAsBytes(body);
        Map<String, String> headers = authorized ? auth() : Map.of();
        return answer(name, http.send(base + path, method, "application/json", bytes, headers, timeout));
    }

    private Answer answer(String name, JsonHttp.Reply r) {
        JsonNode json = r.body() == null ? MissingNode.getInstance() : r.body();
        String errcode = json.path("errcode").isTextual() ? clip(json.path("errcode").asText(), 64) : "";
        String error = json.path("error").isTextual() ? http.redact(clip(json.path("error").asText(), 300)) : "";
        Duration retry = null;
        if (json.path("retry_after_ms").canConvertToLong() && json.path("retry_after_ms").asLong() > 0) {
            retry = Duration.ofMillis(Math.min(json.path("retry_after_ms").asLong(), Duration.ofHours(1).toMillis()));
        } else if (r.status() == 429) {
            retry = r.header("Retry-After").map(MatrixApi::seconds).orElse(Duration.ofSeconds(1));
        }
        return new Answer(name, r.status(), errcode, error, retry, json);
    }

    private static Duration seconds(String s) {
        try {
            return Duration.ofSeconds(Math.max(1, Math.min(3600, Long.parseLong(s.strip()))));
        } catch (NumberFormatException e) {
            return Duration.ofSeconds(1);
        }
    }

    private static String clip(String s, int max) {
        String t = s.replaceAll("\\p{Cntrl}", " ");
        return t.length() <= max ? t : t.substring(0, max) + "...";
    }

    private static String query(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
