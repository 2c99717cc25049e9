package dev.herald.platforms.bluebubbles;

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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The BlueBubbles REST calls the adapter makes, each with the server password as the {@code password} query parameter
 * (the way BlueBubbles authenticates; the URL is never logged, and every error text is redacted): {@code GET
 * /api/v1/ping}, {@code POST /api/v1/message/text}, {@code POST /api/v1/message/attachment} (multipart),
 * {@code POST} and {@code DELETE /api/v1/chat/<guid>/typing}, {@code POST /api/v1/chat/<guid>/read}, and
 * {@code GET /api/v1/attachment/<guid>/download}. BlueBubbles answers {@code {status, message, data, error}}.
 */
final class BlueBubblesApi {
    /** A guid as BlueBubbles writes them: a message or attachment UUID (with an optional {@code p:0/} part prefix), a chat {@code iMessage;-;+1555...}. */
    static final Pattern GUID = Pattern.compile("[A-Za-z0-9_.:;+@/=-]{1,200}");

    /** One answer: the HTTP status and the body (missing when it was not JSON). */
    record Answer(int status, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** BlueBubbles' words for an error ({@code error.message}, else {@code message}), clipped. */
        String describe() {
            String m = body.path("error").path("message").isTextual() ? body.path("error").path("message").asText()
                    : body.path("message").isTextual() ? body.path("message").asText() : "";
            m = m.replaceAll("\\p{Cntrl}", " ");
            return "HTTP " + status + (m.isBlank() ? "" : ": " + (m.length() > 200 ? m.substring(0, 200) + "..." : m));
        }
    }

    private final URI base;
    private final String password;
    private final BlueBubblesSettings.Timing timing;
    private final JsonHttp http;
    private final FileDownload files;

    BlueBubblesApi(BlueBubblesSettings settings, BlueBubblesSettings.Timing timing) {
        this.base = settings.baseUri();
        this.password = settings.passwordValue();
        this.timing = timing;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(password, settings.webhookSecretValue(),
                URLEncoder.encode(password, StandardCharsets.UTF_8)));
        this.files = new FileDownload("bluebubbles", Set.of(FileDownload.host(base)), timing.connectTimeout());
    }

    /** {@code /api/v1/<path>?password=...} on the configured server; {@code path} is already encoded. */
    String url(String path) {
        String b = base.toString();
        return (b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/api/v1/" + path + "?password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
    }

    static String segment(String guid) {
        return URLEncoder.encode(guid, StandardCharsets.UTF_8).replace("+", "%20");
    }

    Answer ping() throws IOException {
        return call("GET", "ping", null);
    }

    Answer sendText(ObjectNode body) throws IOException {
        return call("POST", "message/text", body);
    }

    Answer sendAttachment(Multipart form) throws IOException {
        JsonHttp.Reply r = http.postMultipart(url("message/attachment"), form, Map.of(), timing.requestTimeout());
        return new Answer(r.status(), r.body());
    }

    /** Starts ({@code on}) or stops the typing indicator in {@code chat} (Private API only). */
    Answer typing(String chat, boolean on) throws IOException {
        return call(on ? "POST" : "DELETE", "chat/" + segment(chat) + "/typing", null);
    }

    /** Marks {@code chat} read (Private API only). */
    Answer markRead(String chat) throws IOException {
        return call("POST", "chat/" + segment(chat) + "/read", null);
    }

    private Answer call(String method, String path, ObjectNode body) throws IOException {
        byte[] bytes = method.equals("GET") ? new byte[0] : JsonHttp.JSON.writeValueAsBytes(body == null ? JsonHttp.JSON.createObjectNode() : body);
        JsonHttp.Reply r = http.send(url(path), method, "application/json", bytes, Map.of(), timing.requestTimeout());
        return new Answer(r.status(), r.body());
    }

    /**
     * Downloads attachment {@code guid} from the configured server only: the guid must look like one (no path, no
     * host), and the URL is built here, so an event cannot make Herald fetch from (or send the password to) elsewhere.
     */
    MediaFetcher.Fetched download(String guid, long maxBytes) throws IOException {
        if (guid == null || !GUID.matcher(guid).matches() || guid.contains("..") || guid.contains("/") && !guid.matches("p:[0-9]+/[^/]+")) {
            throw new IOException("bluebubbles - not an attachment guid; not fetched");
        }
        return files.get(url("attachment/" + segment(guid) + "/download"), Map.of(), maxBytes, timing.requestTimeout());
    }

    String describe(IOException e) {
        return http.redact(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }

    /** What a refused send means: 401 the password (for good), 5xx, 408 and 429 retried, else (400, 404, ...) for good. */
    SendResult failure(String what, Answer a) {
        int s = a.status();
        if (s == 401 || s == 403) {
            return SendResult.failed("bluebubbles - " + what + ": the server refused the password (" + a.describe()
                    + "); check platforms.bluebubbles.password", false);
        }
        boolean transient_ = s >= 500 || s == 408 || s == 429;
        return SendResult.failed("bluebubbles - " + what + ": " + http.redact(a.describe()), transient_);
    }

    /** The guid the server gave the sent message ({@code data.guid}), or null. */
    static String messageGuid(JsonNode body) {
        JsonNode g = body.path("data").path("guid");
        return g.isTextual() && GUID.matcher(g.asText()).matches() ? g.asText() : null;
    }

    static String clip(String s, int max) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > max ? clean.substring(0, max) : clean;
    }
}
