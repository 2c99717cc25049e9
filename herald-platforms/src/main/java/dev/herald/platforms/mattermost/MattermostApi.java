package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.Multipart;
import dev.herald.platforms.common.PlatformIds;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Mattermost's REST API v4, the calls Herald makes: who the bot is ({@code GET /users/me}, which also checks the token),
 * its teams and channels, the posts of a channel since a time (catch-up), create a post, upload a file, show typing.
 *
 * <p>Errors: Mattermost answers an error with its HTTP status and a JSON body {@code {id, message, status_code}}; those
 * come back as {@link Failure} with the status and the error id. A 429 carries {@code Retry-After} or
 * {@code X-Ratelimit-Reset} (seconds). The token travels only in the Authorization header and never appears in a message.
 */
final class MattermostApi {
    /** The bot's identity. */
    record Identity(String id, String username) {
    }

    /** A channel the bot is a member of: {@code type} is O (public), P (private), D (direct) or G (group message). */
    record Channel(String id, String type, String name, String displayName) {
        boolean direct() {
            return "D".equals(type);
        }
    }

    /** A call that did not succeed: HTTP status (0 when the server was not reached), Mattermost's error id, and its wait. */
    record Failure(int status, String errorId, Duration retryAfter) {
        boolean retryable() {
            return status == 0 || status == 429 || status == 408 || status >= 500;
        }

        String describe() {
            return (status == 0 ? "not reached" : "HTTP " + status) + (errorId.isEmpty() ? "" : ", " + errorId)
                    + (retryAfter == null ? "" : ", retry after " + retryAfter.toMillis() + " ms");
        }
    }

    /** A failed call as an exception, for the calls whose callers cannot go on without an answer. */
    static final class CallFailed extends Exception {
        final Failure failure;

        CallFailed(String what, Failure failure) {
            super("mattermost - " + what + " failed (" + failure.describe() + ")"
                    + (failure.status() == 401 ? "; the token was rejected, check platforms.mattermost.token" : ""));
            this.failure = failure;
        }
    }

    private final MattermostSettings settings;
    private final MattermostSettings.Timing timing;
    private final HttpClient http;
    private final ObjectMapper json;

    MattermostApi(MattermostSettings settings, MattermostSettings.Timing timing, HttpClient http, ObjectMapper json) {
        this.settings = settings;
        this.timing = timing;
        this.http = http;
        this.json = json;
    }

    Identity me() throws CallFailed {
        JsonNode n = get("/users/me", "reading the bot's own user");
        String id = PlatformIds.of(n.path("id"));
        if (id == null) {
            throw new CallFailed("reading the bot's own user", new Failure(200, "no user id in the answer", null));
        }
        return new Identity(id, n.path("username").asText(""));
    }

    /** The id of the team named {@code name}, or empty when the bot cannot see such a team. */
    Optional<String> teamId(String name) throws CallFailed {
        try {
            return Optional.ofNullable(PlatformIds.of(get("/teams/name/" + encode(name), "reading team " + name).path("id")));
        } catch (CallFailed e) {
            if (e.failure.status() == 404 || e.failure.status() == 403) {
                return Optional.empty();
            }
            throw e;
        }
    }

    List<String> myTeams() throws CallFailed {
        List<String> out = new ArrayList<>();
        for (JsonNode t : get("/users/me/teams", "listing the bot's teams")) {
            String id = PlatformIds.of(t.path("id"));
            if (id != null) {
                out.add(id);
            }
        }
        return out;
    }

    /** The channels of {@code teamId} the bot is a member of; direct and group messages are listed with every team. */
    List<Channel> myChannels(String teamId) throws CallFailed {
        List<Channel> out = new ArrayList<>();
        for (JsonNode c : get("/users/me/teams/" + teamId + "/channels", "listing the bot's channels")) {
            String id = PlatformIds.of(c.path("id"));
            if (id != null && c.path("delete_at").asLong(0) == 0) {
                out.add(new Channel(id, c.path("type").asText(""), c.path("name").asText(""), c.path("display_name").asText("")));
            }
        }
        return out;
    }

    /**
     * The posts of {@code channelId} created after {@code since} (epoch ms, the server's clock), oldest first. The server
     * answers every post created, edited or deleted since then; edits of older posts and deleted posts are left out here.
     */
    List<JsonNode> postsSince(String channelId, long since) throws CallFailed {
        JsonNode list = get("/channels/" + channelId + "/posts?since=" + since, "reading the posts of channel " + channelId);
        List<JsonNode> out = new ArrayList<>();
        list.path("posts").forEach(p -> {
            if (p.path("create_at").asLong(0) > since && p.path("delete_at").asLong(0) == 0) {
                out.add(p);
            }
        });
        out.sort(Comparator.comparingLong(p -> p.path("create_at").asLong(0)));
        return out;
    }

    /**
     * Creates a post. With a {@code pendingPostId} the server remembers the post it made for that id for about 30 seconds
     * and answers a second create with the same id with that post instead of making another (a create still in progress
     * answers 500, which is retried).
     */
    SendResult createPost(String channelId, String message, String rootId, List<String> fileIds, String pendingPostId) {
        ObjectNode body = json.createObjectNode();
        body.put("channel_id", channelId);
        body.put("message", message);
        if (rootId != null) {
            body.put("root_id", rootId);
        }
        if (fileIds != null && !fileIds.isEmpty()) {
            fileIds.forEach(body.putArray("file_ids")::add);
        }
        if (pendingPostId != null) {
            body.put("pending_post_id", pendingPostId);
        }
        String what = "creating a post in channel " + channelId;
        Reply r = send(request("/posts").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
        if (r.ok()) {
            String id = PlatformIds.of(r.body().path("id"));
            return SendResult.sent(id);
        }
        return failed(what, r.failure());
    }

    /** Uploads a file into {@code channelId} ({@code POST /files}, multipart); its id, for a post's {@code file_ids}. */
    String uploadFile(String channelId, String name, String mimeType, byte[] bytes) throws CallFailed {
        Multipart form = new Multipart().field("channel_id", channelId).file("files", name, mimeType, bytes);
        Reply r = send(request("/files").timeout(timing.requestTimeout().multipliedBy(10)).header("Content-Type", form.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(form.body())));
        String what = "uploading file " + name + " to channel " + channelId;
        if (!r.ok()) {
            throw new CallFailed(what, r.failure());
        }
        String id = PlatformIds.of(r.body().path("file_infos").path(0).path("id"));
        if (id == null) {
            throw new CallFailed(what, new Failure(r.status(), "no file id in the answer", null));
        }
        return id;
    }

    /** Shows "Herald is typing..." in {@code channelId} (in the thread {@code parentId} when given); best-effort. */
    boolean typing(String userId, String channelId, String parentId) {
        ObjectNode body = json.createObjectNode().put("channel_id", channelId);
        if (parentId != null) {
            body.put("parent_id", parentId);
        }
        return send(request("/users/" + userId + "/typing").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))).ok();
    }

    /** The address of file {@code fileId}, served to the bot's token. */
    String fileUrl(String fileId) {
        return settings.apiRoot() + "/files/" + fileId;
    }

    static SendResult failed(String what, Failure f) {
        String text = "mattermost - " + what + " failed (" + f.describe() + ")";
        if (f.status() == 429) {
            Duration wait = f.retryAfter() == null ? Duration.ofSeconds(1) : f.retryAfter();
            return SendResult.rateLimited(text + "; Mattermost asked to wait " + wait.toMillis() + " ms", wait);
        }
        if (f.status() == 401) {
            return SendResult.failed(text + "; the token was rejected, check platforms.mattermost.token", false);
        }
        if (f.status() == 403) {
            return SendResult.failed(text + "; the bot may not post there (add it to the channel, or give it the post:all permission)",
                    false);
        }
        if (f.status() == 413) {
            return SendResult.failed(text + "; the file is larger than the server takes (System Console > Files > Maximum File Size)",
                    false);
        }
        return SendResult.failed(text, f.retryable());
    }

    private JsonNode get(String path, String what) throws CallFailed {
        Reply r = send(request(path).GET());
        if (!r.ok()) {
            throw new CallFailed(what, r.failure());
        }
        return r.body();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(settings.apiRoot() + path)).timeout(timing.requestTimeout())
                .header("Authorization", "Bearer " + settings.tokenValue()).header("X-Requested-With", "XMLHttpRequest");
    }

    private Reply send(HttpRequest.Builder b) {
        HttpResponse<byte[]> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            return new Reply(0, MissingNode.getInstance(), null, e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, MissingNode.getInstance(), null, "interrupted");
        }
        JsonNode body;
        try {
            body = r.body().length == 0 ? MissingNode.getInstance() : json.readTree(r.body());
        } catch (IOException e) {
            body = MissingNode.getInstance();
        }
        return new Reply(r.statusCode(), body == null ? MissingNode.getInstance() : body, r.headers(), "");
    }

    private record Reply(int status, JsonNode body, HttpHeaders headers, String ioError) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        Failure failure() {
            String id = status == 0 ? ioError : body.path("id").asText("");
            return new Failure(status, id.length() > 120 ? id.substring(0, 120) : id, status == 429 ? retryAfter(headers) : null);
        }
    }

    /** Mattermost's {@code Retry-After}, else {@code X-Ratelimit-Reset} (both seconds); one second when neither reads. */
    static Duration retryAfter(HttpHeaders headers) {
        for (String name : List.of("Retry-After", "X-Ratelimit-Reset")) {
            Optional<String> v = headers == null ? Optional.empty() : headers.firstValue(name);
            if (v.isPresent()) {
                try {
                    long s = Long.parseLong(v.get().strip());
                    return Duration.ofSeconds(Math.max(1, Math.min(s, 3600)));
                } catch (NumberFormatException e) {
                    // try the next header
                }
            }
        }
        return Duration.ofSeconds(1);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
