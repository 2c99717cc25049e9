package dev.herald.platforms.ntfy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Publishing to ntfy: {@code POST <base>/<topic>} with the text as the body and {@code Title}, {@code Priority},
 * {@code Tags} (Herald's own tag first) and {@code Markdown: yes} as configured, {@code PUT <base>/<topic>} with a
 * file's bytes and {@code Filename} (its caption as {@code Message}); and fetching an attachment, only from the
 * configured server (same scheme, host and port). Credentials go in {@code Authorization} (bearer token or basic auth),
 * never in a URL; a non-ASCII header value is sent as an RFC 2047 encoded word, which ntfy decodes. ntfy answers the
 * published message as JSON (its {@code id} is the message id) or an error {@code {"code","http","error"}}.
 */
final class NtfyApi {
    /** One answer: HTTP status, body, and the error text when it is not 2xx. */
    record Answer(int status, JsonNode body, String error, Optional<String> retryAfter) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    private final String base;
    private final URI baseUri;
    private final NtfySettings settings;
    private final NtfySettings.Timing timing;
    private final JsonHttp http;
    private final FileDownload files;

    NtfyApi(NtfySettings settings, NtfySettings.Timing timing) {
        this.settings = settings;
        this.timing = timing;
        this.baseUri = settings.baseUri();
        this.base = baseUri.toString().replaceAll("/+$", "");
        this.http = new JsonHttp(timing.connectTimeout(), settings.secrets());
        this.files = new FileDownload("ntfy", Set.copyOf(FileDownload.hostsOf(baseUri)), timing.connectTimeout());
    }

    private Map<String, String> headers(boolean markdown) {
        Map<String, String> h = new LinkedHashMap<>();
        settings.authorization().ifPresent(a -> h.put("Authorization", a));
        h.put("Tags", settings.ownTag());
        h.put("Priority", Integer.toString(settings.priority()));
        if (settings.title() != null) {
            h.put("Title", header(settings.title()));
        }
        if (markdown) {
            h.put("Markdown", "yes");
        }
        return h;
    }

    /** {@code POST <base>/<topic>} with {@code text}, and {@code actions} (ntfy's simple format) when not null. */
    Answer publish(String topic, String text, boolean markdown, String actions) throws IOException {
        Map<String, String> h = headers(markdown);
        if (actions != null) {
            h.put("Actions", actions);
        }
        return answer(http.send(url(topic), "POST", "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8), h,
                timing.requestTimeout()));
    }

    /**
     * Approve, Always and Deny as ntfy {@code http} actions: a press makes the app publish the command to {@code topic},
     * where Herald reads it like a typed one. The app sends the action's request without the person's login, so this
     * only works on a topic anyone may publish to (no credentials configured).
     */
    String approvalActions(String topic) {
        String u = url(topic);
        return "http, Approve, " + u + ", method=POST, body=/approve, clear=true; http, Always, " + u
                + ", method=POST, body=/approve always, clear=true; http, Deny, " + u + ", method=POST, body=/deny, clear=true";
    }

    /** {@code PUT <base>/<topic>} with a file's bytes, its name and its caption. */
    Answer upload(String topic, String fileName, String mimeType, byte[] bytes, String caption) throws IOException {
        Map<String, String> h = headers(false);
        h.put("Filename", fileName.replaceAll("[^A-Za-z0-9._ -]", "_"));
        if (caption != null && !caption.isBlank()) {
            h.put("Message", header(caption.length() > 1000 ? caption.substring(0, 1000) : caption));
        }
        return answer(http.send(url(topic), "PUT", mimeType, bytes, h, timing.requestTimeout()));
    }

    /** An attachment's bytes, from the configured server only (the credentials go there and nowhere else). */
    MediaFetcher.Fetched download(String url, long maxBytes) throws IOException {
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException("ntfy - the attachment's address is not a URL; not fetched");
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        boolean same = FileDownload.host(u).equals(FileDownload.host(baseUri)) && scheme.equals(baseUri.getScheme().toLowerCase(Locale.ROOT))
                && port(u) == port(baseUri);
        if (!same) {
            throw new IOException("ntfy - the attachment is on " + (FileDownload.host(u).isEmpty() ? "no host" : scheme + "://" + FileDownload.host(u))
                    + ", not on platforms.ntfy.base_url's server; not fetched");
        }
        Map<String, String> h = new LinkedHashMap<>();
        settings.authorization().ifPresent(a -> h.put("Authorization", a));
        return files.get(url, h, maxBytes, timing.requestTimeout());
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private String url(String topic) {
        return base + "/" + URLEncoder.encode(topic, StandardCharsets.UTF_8);
    }

    /** {@code value} as a header: as it is when printable ASCII, else an RFC 2047 encoded word (newlines become spaces). */
    static String header(String value) {
        String flat = value.replaceAll("[\\r\\n]+", " ");
        if (flat.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            return flat;
        }
        return "=?UTF-8?B?" + Base64.getEncoder().encodeToString(flat.getBytes(StandardCharsets.UTF_8)) + "?=";
    }

    private Answer answer(JsonHttp.Reply r) {
        String error = null;
        if (!r.ok()) {
            String e = r.body().path("error").asText("");
            error = "HTTP " + r.status() + (e.isBlank() ? "" : ": " + http.redact(e.length() > 200 ? e.substring(0, 200) : e))
                    + (r.body().path("code").isNumber() ? " (code " + r.body().path("code").asInt() + ")" : "");
        }
        return new Answer(r.status(), r.body(), error, r.header("Retry-After"));
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    /** What a refused publish means: 429 waits, 401/403 fail for good naming the credentials, 5xx and 507 are tried again. */
    SendResult failure(String what, Answer a) {
        if (a.status() == 429) {
            Duration wait = a.retryAfter().flatMap(NtfyApi::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("ntfy - " + what + ": rate limited (" + a.error() + ")", wait);
        }
        if (a.status() == 401 || a.status() == 403) {
            return SendResult.failed("ntfy - " + what + ": " + a.error() + "; the credentials may not publish to the topic (check "
                    + "platforms.ntfy.token or username and password, and the topic's access control)", false);
        }
        if (a.status() == 413) {
            return SendResult.failed("ntfy - " + what + ": " + a.error() + " (over the server's attachment limit)", false);
        }
        return SendResult.failed("ntfy - " + what + ": " + a.error(), a.status() >= 500 || a.status() == 408);
    }

    private static Optional<Duration> seconds(String header) {
        try {
            long s = Long.parseLong(header.strip());
            return s >= 0 && s <= 3600 ? Optional.of(Duration.ofSeconds(s)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
