package dev.herald.platforms.slack;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.SendResult;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Slack's Web API, the calls Herald makes: {@code auth.test} (who the bot is; checks the bot token),
 * {@code apps.connections.open} (a Socket Mode URL; checks the app token), {@code chat.postMessage} (with Block Kit blocks
 * or without), {@code chat.update}, {@code chat.postEphemeral}, and the external file upload ({@code files.getUploadURLExternal}, the upload, {@code files.completeUploadExternal}).
 *
 * <p>Slack answers HTTP 200 with {@code ok:false} and an error code for most failures; those come back as
 * {@link Reply.Failed} with the code. HTTP 429 carries {@code Retry-After} in seconds. Tokens travel only in
 * the Authorization header and never appear in a message.
 */
final class SlackWebApi {
    /** Error codes after which the same call may succeed later. */
    private static final Set<String> TRANSIENT = Set.of("ratelimited", "internal_error", "fatal_error", "service_unavailable",
            "request_timeout", "http_5xx", "io_error");
    /** Error codes that mean the token itself is bad. */
    private static final Set<String> BAD_TOKEN = Set.of("invalid_auth", "not_authed", "account_inactive", "token_revoked",
            "token_expired", "not_allowed_token_type");

    /** One call's result. */
    sealed interface Reply {
        record Ok(JsonNode body) implements Reply {
        }

        /**
         * @param error      Slack's error code ({@code channel_not_found}), or {@code http_<status>} / {@code io_error}
         * @param needed     the scope Slack says is missing, or null
         * @param retryAfter Slack's Retry-After for a 429, or null
         */
        record Failed(String error, String needed, Duration retryAfter) implements Reply {
            boolean retryable() {
                return retryAfter != null || TRANSIENT.contains(error);
            }

            boolean badToken() {
                return BAD_TOKEN.contains(error);
            }
        }
    }

    /** The bot's identity from {@code auth.test}. */
    record Identity(String userId, String botId, String team) {
    }

    private final SlackSettings settings;
    private final SlackSettings.Timing timing;
    private final HttpClient http;
    private final ObjectMapper json;

    SlackWebApi(SlackSettings settings, SlackSettings.Timing timing, HttpClient http, ObjectMapper json) {
        this.settings = settings;
        this.timing = timing;
        this.http = http;
        this.json = json;
    }

    /** Who the bot is; fails with an operator message when the bot token is rejected or Slack cannot be reached. */
    Identity authTest() {
        Reply r = call("auth.test", settings.botTokenValue(), json.createObjectNode());
        if (r instanceof Reply.Ok ok) {
            return new Identity(ok.body().path("user_id").asText(""), ok.body().path("bot_id").asText(""), ok.body().path("team").asText(""));
        }
        Reply.Failed f = (Reply.Failed) r;
        if (f.badToken()) {
            throw new IllegalStateException("slack - the bot token was rejected by auth.test (" + f.error() + "); check platforms.slack.bot_token");
        }
        throw new SlackCallException("slack - auth.test failed (" + f.error() + ")", f.retryable());
    }

    /** A fresh Socket Mode URL (single use); fails naming the problem when the app token is rejected. */
    URI openConnection() {
        Reply r = call("apps.connections.open", settings.appTokenValue(), null);
        if (r instanceof Reply.Ok ok && ok.body().hasNonNull("url")) {
            return URI.create(ok.body().get("url").asText());
        }
        if (r instanceof Reply.Failed f && (f.badToken() || "missing_scope".equals(f.error()))) {
            throw new IllegalStateException("slack - the app-level token was rejected by apps.connections.open (" + f.error()
                    + "); check platforms.slack.app_token (an xapp- token with the connections:write scope, Socket Mode enabled)");
        }
        String error = r instanceof Reply.Failed f ? f.error() : "no url in the answer";
        throw new SlackCallException("slack - apps.connections.open failed (" + error + ")",
                !(r instanceof Reply.Failed f) || f.retryable());
    }

    /** Posts {@code text} in {@code channel}, in the thread {@code threadTs} when given. */
    SendResult postMessage(String channel, String text, String threadTs) {
        return postMessage(channel, text, threadTs, null);
    }

    /** {@link #postMessage(String, String, String)} with Block Kit {@code blocks} shown instead of the text, when given. */
    SendResult postMessage(String channel, String text, String threadTs, ArrayNode blocks) {
        ObjectNode body = json.createObjectNode();
        body.put("channel", channel);
        body.put("text", text);
        if (threadTs != null) {
            body.put("thread_ts", threadTs);
        }
        if (blocks != null) {
            body.set("blocks", blocks);
        }
        Reply r = call("chat.postMessage", settings.botTokenValue(), body);
        if (r instanceof Reply.Ok ok) {
            return SendResult.sent(ok.body().path("channel").asText(channel) + ":" + ok.body().path("ts").asText(""));
        }
        return failed("slack - chat.postMessage to " + channel, (Reply.Failed) r);
    }

    /**
     * Replaces the text of the bot's message {@code ts} in {@code channel} ({@code chat.update}); with {@code blocks}, its
     * blocks too (an empty array removes them). The message id answered is {@code <channel>:<ts>}, as for a post.
     */
    SendResult update(String channel, String ts, String text, ArrayNode blocks) {
        ObjectNode body = json.createObjectNode().put("channel", channel).put("ts", ts).put("text", text);
        if (blocks != null) {
            body.set("blocks", blocks);
        }
        Reply r = call("chat.update", settings.botTokenValue(), body);
        if (r instanceof Reply.Ok) {
            return SendResult.sent(channel + ":" + ts);
        }
        return failed("slack - chat.update of " + channel + ":" + ts, (Reply.Failed) r);
    }

    /** Shows {@code text} to {@code user} alone in {@code channel} (in the thread {@code threadTs} when given); true when Slack took it. */
    boolean postEphemeral(String channel, String user, String text, String threadTs) {
        ObjectNode body = json.createObjectNode().put("channel", channel).put("user", user).put("text", text);
        if (threadTs != null) {
            body.put("thread_ts", threadTs);
        }
        return call("chat.postEphemeral", settings.botTokenValue(), body) instanceof Reply.Ok;
    }

    /**
     * Shares {@code file} in {@code channel} (in the thread {@code threadTs} when given) with {@code comment} as its message,
     * by Slack's external upload: {@code files.getUploadURLExternal} (name and length) answers an upload URL and a file id,
     * the bytes go to that URL, and {@code files.completeUploadExternal} shares the file. The upload URL is followed only
     * when it is on Slack's file host ({@code files.slack.com}, https) or the configured API host, and without the token.
     * Slack has no idempotency key for this: a share whose answer was lost is shared again when resent.
     */
    SendResult uploadFile(String channel, String threadTs, String comment, OutboundFile file, long maxBytes) {
        String what = "slack - sharing file " + file.name() + " in " + channel;
        Reply r = callForm("files.getUploadURLExternal", Map.of("filename", file.name(), "length", Long.toString(file.size())));
        if (!(r instanceof Reply.Ok ok)) {
            return failed(what + ": files.getUploadURLExternal", (Reply.Failed) r);
        }
        String fileId = ok.body().path("file_id").asText("");
        URI upload;
        try {
            upload = URI.create(ok.body().path("upload_url").asText(""));
        } catch (IllegalArgumentException e) {
            upload = null;
        }
        if (fileId.isEmpty() || upload == null || !uploadHostAllowed(upload)) {
            return SendResult.failed(what + ": files.getUploadURLExternal answered no upload URL on Slack's file host ("
                    + (upload == null ? "none" : upload.getScheme() + "://" + upload.getHost()) + "); nothing was uploaded", false);
        }
        byte[] bytes;
        try {
            bytes = file.read(maxBytes);
        } catch (IOException e) {
            return SendResult.failed(what + ": " + e.getMessage(), true);
        }
        try {
            HttpResponse<String> u = http.send(HttpRequest.newBuilder(upload).timeout(timing.requestTimeout().multipliedBy(10))
                    .header("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (u.statusCode() != 200) {
                return SendResult.failed(what + ": the upload answered HTTP " + u.statusCode(), u.statusCode() >= 500 || u.statusCode() == 429);
            }
        } catch (IOException e) {
            return SendResult.failed(what + ": the upload failed (" + e.getClass().getSimpleName() + ")", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed(what + ": interrupted", true);
        }
        Map<String, String> complete = new LinkedHashMap<>();
        ArrayNode files = json.createArrayNode();
        files.addObject().put("id", fileId).put("title", file.name());
        complete.put("files", files.toString());
        complete.put("channel_id", channel);
        if (threadTs != null) {
            complete.put("thread_ts", threadTs);
        }
        if (comment != null && !comment.isEmpty()) {
            complete.put("initial_comment", comment);
        }
        Reply c = callForm("files.completeUploadExternal", complete);
        if (c instanceof Reply.Ok) {
            return SendResult.sent(channel + ":" + fileId);
        }
        return failed(what + ": files.completeUploadExternal", (Reply.Failed) c);
    }

    /** Slack's file host over https, or the configured API's own scheme, host and port (a proxy, or a test's fake). */
    boolean uploadHostAllowed(URI upload) {
        if (upload.getHost() == null) {
            return false;
        }
        if ("https".equals(upload.getScheme()) && "files.slack.com".equalsIgnoreCase(upload.getHost()) && upload.getUserInfo() == null) {
            return true;
        }
        URI api = settings.apiUri();
        return api.getScheme().equals(upload.getScheme()) && api.getHost().equalsIgnoreCase(upload.getHost())
                && api.getPort() == upload.getPort() && upload.getUserInfo() == null;
    }

    private static SendResult failed(String what, Reply.Failed f) {
        String text = what + " failed (" + f.error() + ")";
        if (f.retryAfter() != null) {
            return SendResult.rateLimited(text + "; Slack asked to wait " + f.retryAfter().toSeconds() + " s", f.retryAfter());
        }
        if (f.badToken()) {
            return SendResult.failed(text + "; check platforms.slack.bot_token", false);
        }
        if (f.needed() != null) {
            return SendResult.failed(text + "; add the " + f.needed() + " scope under OAuth & Permissions and reinstall the app", false);
        }
        return SendResult.failed(text, f.retryable());
    }

    /** POSTs {@code params} form-encoded to {@code method} with the bot token (the file methods take no JSON). */
    private Reply callForm(String method, Map<String, String> params) {
        StringBuilder form = new StringBuilder();
        params.forEach((k, v) -> form.append(form.isEmpty() ? "" : "&").append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return send(method, settings.botTokenValue(), "application/x-www-form-urlencoded",
                HttpRequest.BodyPublishers.ofString(form.toString()));
    }

    /** POSTs to {@code method}: a JSON body, or an empty form when {@code body} is null. */
    Reply call(String method, String token, ObjectNode body) {
        if (body == null) {
            return send(method, token, "application/x-www-form-urlencoded", HttpRequest.BodyPublishers.noBody());
        }
        return send(method, token, "application/json; charset=utf-8", HttpRequest.BodyPublishers.ofString(body.toString()));
    }

    private Reply send(String method, String token, String contentType, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(settings.apiUri() + "/" + method))
                .timeout(timing.requestTimeout())
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", contentType).POST(body);
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new Reply.Failed("io_error", null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply.Failed("io_error", null, null);
        }
        if (r.statusCode() == 429) {
            long seconds = r.headers().firstValue("Retry-After").map(SlackWebApi::parseLong).orElse(1L);
            return new Reply.Failed("ratelimited", null, Duration.ofSeconds(Math.max(1, seconds)));
        }
        if (r.statusCode() >= 500) {
            return new Reply.Failed("http_5xx", null, null);
        }
        try {
            JsonNode n = json.readTree(r.body());
            if (n.path("ok").asBoolean(false)) {
                return new Reply.Ok(n);
            }
            return new Reply.Failed(n.path("error").asText("http_" + r.statusCode()), n.path("needed").asText(null), null);
        } catch (IOException e) {
            return new Reply.Failed("http_" + r.statusCode(), null, null);
        }
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** A Web API call that failed; says whether trying again later may help. */
    static final class SlackCallException extends RuntimeException {
        private final boolean retryable;

        SlackCallException(String message, boolean retryable) {
            super(message);
            this.retryable = retryable;
        }

        boolean retryable() {
            return retryable;
        }
    }
}
