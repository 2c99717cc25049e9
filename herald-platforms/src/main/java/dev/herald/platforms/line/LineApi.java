package dev.herald.platforms.line;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Messaging API calls the adapter makes, with the channel access token as a bearer header (never in a URL, never in
 * a message or a log line): {@code POST /v2/bot/message/reply} (with an event's reply token), {@code POST
 * /v2/bot/message/push} (with {@code X-Line-Retry-Key}), {@code POST /v2/bot/chat/loading/start} (the loading
 * animation of a 1:1 chat), {@code GET /v2/bot/info} (the start's credential check) and {@code GET
 * /v2/bot/message/{id}/content} on the data API's host, and only there (a download).
 *
 * <p>Errors come back as {@code {"message": ..., "details": [{"message", "property"}]}}; {@link Answer#describe()}
 * names both, with the token masked should LINE ever echo it.
 */
final class LineApi {
    /** One answer: the HTTP status, the body, LINE's error text and details when it failed. */
    record Answer(int status, JsonNode body, String message, List<String> details, Optional<String> retryAfter, Optional<String> requestId) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String describe() {
            return "HTTP " + status + (message == null ? "" : ": " + message) + (details.isEmpty() ? "" : " (" + String.join("; ", details) + ")")
                    + requestId.map(id -> ", x-line-request-id " + id).orElse("");
        }
    }

    private final String base;
    private final URI dataUri;
    private final String token;
    private final LineSettings.Timing timing;
    private final JsonHttp http;
    private final FileDownload files;

    LineApi(LineSettings settings, LineSettings.Timing timing) {
        this.base = settings.apiUri().toString();
        this.dataUri = settings.dataApiUri();
        this.token = settings.accessTokenValue();
        this.timing = timing;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(token, settings.channelSecretValue()));
        this.files = new FileDownload("line", Set.of(FileDownload.host(dataUri)), timing.connectTimeout());
    }

    private Map<String, String> auth() {
        return Map.of("Authorization", "Bearer " + token);
    }

    /** {@code POST /v2/bot/message/reply}: {@code messages} (1 to 5) answering the event whose reply token this is. */
    Answer reply(String replyToken, ArrayNode messages) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("replyToken", replyToken);
        b.set("messages", messages);
        return answer(http.post(base + "/v2/bot/message/reply", b, auth(), timing.requestTimeout()));
    }

    /** {@code POST /v2/bot/message/push} to a user, group or room, with {@code retryKey} so that LINE runs it once (409 after). */
    Answer push(String to, ArrayNode messages, String retryKey) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("to", to);
        b.set("messages", messages);
        return answer(http.post(base + "/v2/bot/message/push", b, Map.of("Authorization", "Bearer " + token, "X-Line-Retry-Key", retryKey),
                timing.requestTimeout()));
    }

    /** {@code POST /v2/bot/chat/loading/start}: the loading animation in a 1:1 chat for {@code seconds} (5 to 60, a multiple of 5). */
    Answer loading(String userId, int seconds) throws IOException {
        ObjectNode b = JsonHttp.JSON.createObjectNode().put("chatId", userId).put("loadingSeconds", seconds);
        return answer(http.post(base + "/v2/bot/chat/loading/start", b, auth(), timing.requestTimeout()));
    }

    /** {@code GET /v2/bot/info}: the bot's user id, basic id and display name when the token is valid. */
    Answer botInfo() throws IOException {
        return answer(http.send(base + "/v2/bot/info", "GET", "application/json", new byte[0], auth(), timing.requestTimeout()));
    }

    /**
     * The content of message {@code messageId} (digits): {@code GET /v2/bot/message/{id}/content} on the data API's host,
     * the only host it is fetched from. LINE answers 202 while a video or audio is still being prepared.
     */
    MediaFetcher.Fetched content(String messageId, long maxBytes) throws IOException {
        if (messageId == null || !messageId.matches("[0-9]{1,32}")) {
            throw new IOException("line - the attachment has no usable LINE message id");
        }
        return files.get(dataUri + "/v2/bot/message/" + messageId + "/content", auth(), maxBytes, timing.requestTimeout());
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    private Answer answer(JsonHttp.Reply r) {
        String message = null;
        List<String> details = new ArrayList<>();
        if (!r.ok()) {
            message = text(r.body().path("message"));
            for (JsonNode d : r.body().path("details")) {
                String m = text(d.path("message"));
                String p = text(d.path("property"));
                if (m != null || p != null) {
                    details.add((p == null ? "" : p + ": ") + (m == null ? "?" : m));
                }
                if (details.size() >= 10) {
                    break;
                }
            }
        }
        return new Answer(r.status(), r.body(), message, details, r.header("Retry-After"), r.header("x-line-request-id").map(this::clip));
    }

    private String text(JsonNode n) {
        return n == null || !n.isValueNode() || n.asText().isBlank() ? null : clip(n.asText());
    }

    private String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return http.redact(clean.length() > 300 ? clean.substring(0, 300) + "..." : clean);
    }

    /** What a failed send means: 429 waits and retries, 401 names the key, 5xx retries, any other 4xx is final. */
    SendResult failure(String what, Answer a) {
        if (a.status() == 429) {
            Duration wait = a.retryAfter().flatMap(LineApi::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("line - " + what + ": rate limited (" + a.describe() + ")", wait);
        }
        if (a.status() == 401) {
            return SendResult.failed("line - " + what + ": the channel access token was rejected (" + a.describe()
                    + "); set a valid platforms.line.channel_access_token", false);
        }
        return SendResult.failed("line - " + what + ": " + a.describe(), a.status() >= 500);
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
