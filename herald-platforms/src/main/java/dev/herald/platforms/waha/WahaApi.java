package dev.herald.platforms.waha;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The WAHA calls the adapter makes, each with the {@code X-Api-Key} header (never in a URL or a message):
 * {@code GET /api/sessions/<session>} (the session's status and its own number), {@code POST /api/sendText},
 * {@code /api/sendImage} and {@code /api/sendFile} (a file as base64 {@code data}), {@code POST /api/startTyping},
 * {@code /api/stopTyping} and {@code /api/sendSeen}, and the download of a media file WAHA stored under its own
 * {@code /api/files/}. Only the documented HTTP API: the WhatsApp protocol stays inside WAHA.
 */
final class WahaApi {
    /** One answer: the HTTP status and the body (missing when it was not JSON). */
    record Answer(int status, JsonNode body, Optional<String> retryAfter) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** WAHA's words for an error ({@code message}, or {@code error}), clipped, else the status. */
        String describe() {
            String m = body.path("message").isTextual() ? body.path("message").asText()
                    : body.path("error").isTextual() ? body.path("error").asText() : "";
            m = m.replaceAll("\\p{Cntrl}", " ");
            return "HTTP " + status + (m.isBlank() ? "" : ": " + (m.length() > 200 ? m.substring(0, 200) + "..." : m));
        }
    }

    /** What {@code GET /api/sessions/<session>} said: its status and the number it is logged in as (ids, may be null). */
    record SessionInfo(String status, String meId, String meLid) {
    }

    private final URI base;
    private final String session;
    private final String apiKey;
    private final WahaSettings.Timing timing;
    private final JsonHttp http;
    private final HttpClient getClient;
    private final FileDownload files;

    WahaApi(WahaSettings settings, WahaSettings.Timing timing) {
        this.base = settings.baseUri();
        this.session = settings.session();
        this.apiKey = settings.apiKeyValue();
        this.timing = timing;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(apiKey, settings.hmacKeyValue()));
        this.getClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timing.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.files = new FileDownload("waha", Set.of(FileDownload.host(base)), timing.connectTimeout());
    }

    private String url(String path) {
        String b = base.toString();
        return (b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + path;
    }

    private Map<String, String> auth() {
        return Map.of("X-Api-Key", apiKey);
    }

    /** The session's status ({@code STOPPED}, {@code STARTING}, {@code SCAN_QR_CODE}, {@code WORKING}, {@code FAILED}). */
    Answer sessionInfo() throws IOException {
        return get(url("/api/sessions/" + URLEncoder.encode(session, StandardCharsets.UTF_8)));
    }

    static SessionInfo sessionOf(JsonNode body) {
        String status = body.path("status").isTextual() ? clip(body.path("status").asText(), 40) : "UNKNOWN";
        String me = body.path("me").path("id").isTextual() ? body.path("me").path("id").asText() : null;
        String lid = body.path("me").path("lid").isTextual() ? body.path("me").path("lid").asText() : null;
        return new SessionInfo(status, me, lid);
    }

    /** {@code POST /api/<method>} with {@code body}; the session is added. */
    Answer call(String method, ObjectNode body) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("session", session);
        b.setAll(body);
        JsonHttp.Reply r = http.post(url("/api/" + method), b, auth(), timing.requestTimeout());
        return new Answer(r.status(), r.body(), r.header("Retry-After"));
    }

    private Answer get(String url) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timing.requestTimeout()).GET().header("X-Api-Key", apiKey)
                .header("Accept", "application/json").build();
        HttpResponse<byte[]> r;
        try {
            r = getClient.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for WAHA");
        } catch (IOException | RuntimeException e) {
            throw new IOException(http.describe(e));
        }
        JsonNode body;
        try {
            body = r.body().length == 0 ? JsonHttp.JSON.missingNode() : JsonHttp.JSON.readTree(r.body());
        } catch (IOException notJson) {
            body = JsonHttp.JSON.missingNode();
        }
        return new Answer(r.statusCode(), body == null ? JsonHttp.JSON.missingNode() : body, r.headers().firstValue("Retry-After"));
    }

    /**
     * Downloads a media file WAHA named in a message: only from WAHA's own scheme, host and port (the configured
     * {@code url}) and under {@code /api/files/}, with the API key; a URL anywhere else is refused before any connection,
     * so a forged event cannot make Herald fetch from (or send the key to) another host.
     */
    MediaFetcher.Fetched download(String url, long maxBytes) throws IOException {
        if (!ownFileUrl(url, base)) {
            throw new IOException("waha - the media URL is not under WAHA's own " + base.getScheme() + "://" + FileDownload.host(base)
                    + (base.getPort() < 0 ? "" : ":" + base.getPort()) + "/api/files/ (platforms.waha.url); not fetched");
        }
        return files.get(url, auth(), maxBytes, timing.requestTimeout());
    }

    /** Whether {@code url} is a file on WAHA itself: same scheme, host and port as {@code base}, path under /api/files/. */
    static boolean ownFileUrl(String url, URI base) {
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException | NullPointerException e) {
            return false;
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        return scheme.equals(base.getScheme().toLowerCase(Locale.ROOT)) && FileDownload.host(u).equals(FileDownload.host(base))
                && port(u) == port(base) && u.getRawUserInfo() == null && path.startsWith("/api/files/") && !path.contains("..")
                && !path.toLowerCase(Locale.ROOT).contains("%2e");
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    /** What a refused send means: 401/403 the key (for good), 429 a wait, 5xx and timeouts retried, else (400, 404, 501, ...) for good. */
    SendResult failure(String what, Answer a) {
        int s = a.status();
        if (s == 429) {
            Duration wait = a.retryAfter().flatMap(WahaApi::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("waha - " + what + ": rate limited (" + a.describe() + ")", wait);
        }
        if (s == 401 || s == 403) {
            return SendResult.failed("waha - " + what + ": WAHA refused the API key (" + a.describe() + "); check platforms.waha.api_key", false);
        }
        boolean transient_ = s >= 500 && s != 501 || s == 408;
        return SendResult.failed("waha - " + what + ": " + http.redact(a.describe()), transient_);
    }

    private static Optional<Duration> seconds(String header) {
        try {
            long s = Long.parseLong(header.strip());
            return s >= 0 && s <= 3600 ? Optional.of(Duration.ofSeconds(s)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The id WAHA gives a sent message: {@code id} as text, {@code id._serialized} (WEBJS) or {@code key.id} (NOWEB). */
    static String messageId(JsonNode body) {
        JsonNode id = body.path("id");
        String s = id.isTextual() ? id.asText() : id.path("_serialized").isTextual() ? id.path("_serialized").asText()
                : body.path("key").path("id").isTextual() ? body.path("key").path("id").asText() : null;
        return s == null || s.isBlank() ? null : clip(s, 256);
    }

    private static final java.util.regex.Pattern CONTROL = java.util.regex.Pattern.compile("\\p{Cntrl}");

    static String clip(String s, int max) {
        String clean = CONTROL.matcher(s).replaceAll(" ");
        return clean.length() > max ? clean.substring(0, max) : clean;
    }

    void close() {
        getClient.close();
    }
}
