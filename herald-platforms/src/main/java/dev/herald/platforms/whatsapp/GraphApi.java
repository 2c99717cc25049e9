package dev.herald.platforms.whatsapp;

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
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Graph API calls the adapter makes, with the access token as a bearer header (never in a URL, never in a message):
 * {@code POST /<phone-number-id>/messages} (text, media by id, interactive buttons, templates, read receipts with the
 * typing indicator), {@code POST /<phone-number-id>/media} (an upload), {@code GET /<media-id>} then the media URL it
 * names (a download), and {@code GET /<phone-number-id>} (the start's credential check).
 *
 * <p>Errors come back as Graph's {@code {"error":{"message","type","code","error_subcode","error_data":{"details"},
 * "fbtrace_id"}}}; {@link Answer#error()} reads them and the adapter decides by {@code code}, as Meta advises.
 */
final class GraphApi {
    /** One answer: the HTTP status, the body, and Graph's error when there is one. */
    record Answer(int status, JsonNode body, GraphError error, Optional<String> retryAfter) {
        boolean ok() {
            return status >= 200 && status < 300 && error == null;
        }
    }

    /**
     * A Graph API error.
     *
     * @param code    Graph's error code (131047 window closed, 130429 rate limit, 190 token, ...), 0 when the body had none
     * @param message Graph's message, or the HTTP status when the body was not Graph's
     * @param details {@code error_data.details}, when given
     */
    record GraphError(int code, String message, String details, String fbtraceId) {
        String describe() {
            return "error " + code + ": " + message + (details == null || details.isBlank() || details.equals(message) ? "" : " (" + details + ")")
                    + (fbtraceId == null ? "" : ", fbtrace_id " + fbtraceId);
        }
    }

    private final String base;
    private final String phoneNumberId;
    private final String token;
    private final WhatsAppSettings.Timing timing;
    private final JsonHttp http;
    private final HttpClient getClient;
    private final URI apiUri;

    GraphApi(WhatsAppSettings settings, WhatsAppSettings.Timing timing) {
        this.apiUri = settings.apiUri();
        this.base = apiUri.toString();
        this.phoneNumberId = settings.phoneNumberId();
        this.token = settings.accessTokenValue();
        this.timing = timing;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(token, settings.appSecretValue(), settings.verifyTokenValue()));
        this.getClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timing.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private Map<String, String> auth() {
        return Map.of("Authorization", "Bearer " + token);
    }

    /** {@code POST /<phone-number-id>/messages} with {@code body} ({@code messaging_product} is added). */
    Answer message(ObjectNode body) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("messaging_product", "whatsapp");
        b.setAll(body);
        return answer(http.post(base + "/" + phoneNumberId + "/messages", b, auth(), timing.requestTimeout()));
    }

    /** Uploads {@code bytes} of {@code mimeType}; the media id comes back as {@code body.id}. */
    Answer upload(String fileName, String mimeType, byte[] bytes) throws IOException {
        Multipart form = new Multipart().field("messaging_product", "whatsapp").field("type", mimeType).file("file", fileName, mimeType, bytes);
        return answer(http.postMultipart(base + "/" + phoneNumberId + "/media", form, auth(), timing.requestTimeout()));
    }

    /** {@code GET /<phone-number-id>}: the number's display name and number when the token may use it. */
    Answer phoneNumber() throws IOException {
        return get(base + "/" + phoneNumberId + "?fields=" + URLEncoder.encode("display_phone_number,verified_name", StandardCharsets.UTF_8));
    }

    /** {@code GET /<media-id>}: the media's short-lived URL, type and size. */
    Answer mediaInfo(String mediaId) throws IOException {
        return get(base + "/" + mediaId + "?phone_number_id=" + phoneNumberId);
    }

    private Answer get(String url) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timing.requestTimeout()).GET().header("Authorization", "Bearer " + token)
                .build();
        HttpResponse<byte[]> r;
        try {
            r = getClient.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the Graph API");
        } catch (IOException | RuntimeException e) {
            throw new IOException(http.describe(e));
        }
        JsonNode body;
        try {
            body = r.body().length == 0 ? JsonHttp.JSON.missingNode() : JsonHttp.JSON.readTree(r.body());
        } catch (IOException notJson) {
            body = JsonHttp.JSON.missingNode();
        }
        return answer(new JsonHttp.Reply(r.statusCode(), body == null ? JsonHttp.JSON.missingNode() : body, r.headers().map()));
    }

    /**
     * Downloads a media URL that {@code GET /<media-id>} gave, with the token: only over https from Meta's own hosts
     * ({@code *.fbsbx.com}, {@code *.fbcdn.net}, {@code *.facebook.com}, {@code *.whatsapp.net}) or from the configured
     * {@code api_base}'s host and scheme, so a forged URL cannot make Herald fetch from (or send the token to) anywhere else.
     */
    MediaFetcher.Fetched download(String url, long maxBytes) throws IOException {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException("whatsapp - the media URL Meta gave is not a URL; not fetched");
        }
        String host = FileDownload.host(uri);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean apiHost = host.equals(FileDownload.host(apiUri)) && scheme.equals(apiUri.getScheme().toLowerCase(Locale.ROOT))
                && uri.getPort() == apiUri.getPort();
        if (!apiHost && !(scheme.equals("https") && metaHost(host))) {
            throw new IOException("whatsapp - the media URL is on " + (host.isEmpty() ? "no host" : scheme + "://" + host)
                    + ", not on Meta's media hosts (https, *.fbsbx.com, *.fbcdn.net, *.facebook.com, *.whatsapp.net) or api_base's; not fetched");
        }
        FileDownload files = new FileDownload("whatsapp", Set.of(host), timing.connectTimeout());
        return files.get(url, auth(), maxBytes, timing.requestTimeout());
    }

    static boolean metaHost(String host) {
        for (String domain : List.of("fbsbx.com", "fbcdn.net", "facebook.com", "whatsapp.net")) {
            if (host.equals(domain) || host.endsWith("." + domain)) {
                return true;
            }
        }
        return false;
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    private Answer answer(JsonHttp.Reply r) {
        JsonNode e = r.body().path("error");
        GraphError error = null;
        if (e.isObject()) {
            error = new GraphError(e.path("code").asInt(0), text(e.path("message"), "HTTP " + r.status()),
                    text(e.path("error_data").path("details"), null), text(e.path("fbtrace_id"), null));
        } else if (r.status() < 200 || r.status() >= 300) {
            error = new GraphError(0, "HTTP " + r.status(), null, null);
        }
        return new Answer(r.status(), r.body(), error, r.header("Retry-After"));
    }

    private String text(JsonNode n, String otherwise) {
        if (n == null || !n.isValueNode() || n.asText().isBlank()) {
            return otherwise;
        }
        String s = n.asText();
        return http.redact(s.length() > 300 ? s.substring(0, 300) + "..." : s);
    }

    /** What a failed send means, by Graph's error code (Meta: decide by {@code code}, not by HTTP status or text). */
    SendResult failure(String what, Answer a) {
        GraphError e = a.error();
        int code = e.code();
        if (a.status() == 429 || code == 130429 || code == 131056 || code == 80007 || code == 4 || code == 613) {
            Duration wait = a.retryAfter().flatMap(GraphApi::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("whatsapp - " + what + ": rate limited (" + e.describe() + ")", wait);
        }
        if (code == 190 || code == 0 && a.status() == 401) {
            return SendResult.failed("whatsapp - " + what + ": the access token was rejected (" + e.describe()
                    + "); set a valid platforms.whatsapp.access_token (a system user's permanent token)", false);
        }
        if (code == 131026) {
            return SendResult.failed("whatsapp - " + what + ": the message cannot be delivered to this number (" + e.describe()
                    + "): not on WhatsApp, an old app, or the person has not accepted WhatsApp's terms", false);
        }
        boolean transient_ = a.status() >= 500 || code == 1 || code == 2 || code == 131000 || code == 133004;
        return SendResult.failed("whatsapp - " + what + ": " + e.describe(), transient_);
    }

    private static Optional<Duration> seconds(String header) {
        try {
            long s = Long.parseLong(header.strip());
            return s >= 0 && s <= 3600 ? Optional.of(Duration.ofSeconds(s)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    void close() {
        getClient.close();
    }
}
