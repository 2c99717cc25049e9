package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.MultipartForm;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local stand-in for a Mattermost server, written for these tests from the v4 API reference and the server's
 * behaviour: users with tokens (and a password login, as the official client does), one team, channels with members,
 * posts (with {@code root_id} threads, {@code pending_post_id} deduplicated for 30 seconds as the server does, the
 * 16,383-character limit, programmable 429s and slow answers), {@code GET /channels/{id}/posts} with {@code since} or pages,
 * threads, direct channels, files (multipart upload, download), typing, and the WebSocket API: authentication by
 * {@code authentication_challenge} (or the Authorization header), {@code hello} at seq 0, {@code posted} events with the
 * post as a JSON string and seq counting up per connection, {@code ping} answered with a pong reply. Everything it
 * receives is recorded.
 */
final class FakeMattermost implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TEAM = "team0000000000000000000001";
    static final String TEAM_NAME = "core";
    static final String TOWN_SQUARE = "town0000000000000000square";
    static final String BOT = "herald0bot0000000000000001";
    static final String BOT_TOKEN = "bottoken000000000000000001";
    static final String ALICE = "alice000000000000000000001";
    static final String BOB = "bob00000000000000000000001";
    static final String MALLORY = "mallory0000000000000000001";
    static final String PASSWORD = "correct horse";
    static final Duration PENDING_TTL = Duration.ofSeconds(30);

    record User(String id, String username, String token, boolean bot) {
    }

    record Channel(String id, String type, String name, String displayName, Set<String> members) {
    }

    /** One file uploaded with POST /files. */
    record File(String id, String channelId, String name, String mimeType, byte[] bytes) {
    }

    private final Map<String, User> users = new ConcurrentHashMap<>();
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Every post, in creation order. */
    final List<ObjectNode> posts = new CopyOnWriteArrayList<>();
    final Map<String, File> files = new ConcurrentHashMap<>();
    final List<JsonNode> typing = new CopyOnWriteArrayList<>();
    final List<String> sinceQueries = new CopyOnWriteArrayList<>();
    final Deque<Integer> postRetryAfter = new ConcurrentLinkedDeque<>();
    final AtomicInteger postAttempts = new AtomicInteger();
    final AtomicInteger pendingReplays = new AtomicInteger();
    final AtomicInteger authentications = new AtomicInteger();
    /** Delay before a created post is answered (the post exists, and is broadcast, at once). */
    volatile Duration answerDelay = Duration.ZERO;
    /** While set, WebSocket connections are closed as they open (the server is unreachable for events). */
    volatile boolean refuseSockets;

    private record Pending(String postId, long atNanos) {
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    private final AtomicLong lastMillis = new AtomicLong();
    private final SecureRandom random = new SecureRandom();
    private final Javalin app;

    private static final class Conn {
        final WsContext ctx;
        final String id;
        volatile String userId;
        long seq;

        Conn(WsContext ctx, String id) {
            this.ctx = ctx;
            this.id = id;
        }
    }

    FakeMattermost() {
        user(BOT, "herald", BOT_TOKEN, true);
        user(ALICE, "alice", "alicetoken0000000000000001", false);
        user(BOB, "bob", "bobtoken000000000000000001", false);
        user(MALLORY, "mallory", "mallorytoken00000000000001", false);
        channels.put(TOWN_SQUARE, new Channel(TOWN_SQUARE, "O", "town-square", "Town Square",
                new LinkedHashSet<>(List.of(BOT, ALICE, BOB, MALLORY))));
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.post("/api/v4/users/login", this::login);
            config.routes.get("/api/v4/users/me", ctx -> withUser(ctx, u -> json(ctx, 200, userJson(u))));
            config.routes.get("/api/v4/users/username/{name}", ctx -> withUser(ctx, u -> users.values().stream()
                    .filter(x -> x.username().equals(ctx.pathParam("name"))).findFirst()
                    .ifPresentOrElse(x -> json(ctx, 200, userJson(x)), () -> error(ctx, 404, "app.user.missing_account.const"))));
            config.routes.get("/api/v4/users/me/teams", ctx -> withUser(ctx, u -> json(ctx, 200, JSON.createArrayNode().add(teamJson()))));
            config.routes.get("/api/v4/teams/name/{name}", ctx -> withUser(ctx, u -> {
                if (TEAM_NAME.equals(ctx.pathParam("name"))) {
                    json(ctx, 200, teamJson());
                } else {
                    error(ctx, 404, "app.team.get_by_name.missing.app_error");
                }
            }));
            config.routes.get("/api/v4/users/me/teams/{team}/channels", ctx -> withUser(ctx, u -> {
                ArrayNode out = JSON.createArrayNode();
                channels.values().stream().filter(c -> c.members().contains(u.id())).forEach(c -> out.add(channelJson(c)));
                json(ctx, 200, out);
            }));
            config.routes.post("/api/v4/channels/direct", ctx -> withUser(ctx, u -> {
                JsonNode ids = JSON.readTree(ctx.body());
                json(ctx, 201, channelJson(channels.get(direct(ids.path(0).asText(), ids.path(1).asText()))));
            }));
            config.routes.get("/api/v4/channels/{id}/posts", this::channelPosts);
            config.routes.get("/api/v4/posts/{id}/thread", this::thread);
            config.routes.post("/api/v4/posts", this::createPost);
            config.routes.post("/api/v4/files", this::upload);
            config.routes.get("/api/v4/files/{id}", ctx -> withUser(ctx, u -> {
                File f = files.get(ctx.pathParam("id"));
                if (f == null) {
                    error(ctx, 404, "app.file_info.get.app_error");
                } else {
                    ctx.status(200).contentType(f.mimeType()).result(f.bytes());
                }
            }));
            config.routes.post("/api/v4/users/{id}/typing", ctx -> withUser(ctx, u -> {
                typing.add(JSON.readTree(ctx.body()));
                json(ctx, 200, JSON.createObjectNode().put("status", "OK"));
            }));
            config.routes.ws("/api/v4/websocket", ws -> {
                ws.onConnect(ctx -> {
                    if (refuseSockets) {
                        ctx.closeSession(1011, "unavailable");
                        return;
                    }
                    Conn c = new Conn(ctx, newId());
                    conns.add(c);
                    User byHeader = bearer(ctx.header("Authorization"));
                    if (byHeader != null) {
                        authenticated(c, byHeader);
                    }
                });
                ws.onMessage(ctx -> onAction(ctx, ctx.message()));
                ws.onClose(ctx -> conns.removeIf(c -> c.ctx.sessionId().equals(ctx.sessionId())));
            });
        }).start("127.0.0.1", 0);
    }

    String url() {
        return "http://127.0.0.1:" + app.port();
    }

    // ---- Herald on this fake ----------------------------------------------------------------------------------------

    /** A Herald process on this fake: the real adapter with the bot's token; it has started once its websocket is authenticated. */
    GatewayFixture herald(String... allowedUsers) {
        return herald(s -> s, allowedUsers);
    }

    GatewayFixture herald(java.util.function.UnaryOperator<MattermostSettings> adjust, String... allowedUsers) {
        GatewayFixture[] fixture = new GatewayFixture[1];
        fixture[0] = new GatewayFixture(clock -> new MattermostAdapter(adjust.apply(settings()), timing(), clock,
                fixture[0].storage.platformState())).allow(allowedUsers).readyWhen(this::botConnected).closing(this);
        return fixture[0];
    }

    MattermostSettings settings() {
        return MattermostSettings.of(url(), BOT_TOKEN);
    }

    /** Quick reconnection and short timeouts, so that a test of a dropped connection takes milliseconds. */
    static MattermostSettings.Timing timing() {
        return new MattermostSettings.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(3), Duration.ofSeconds(20),
                Duration.ofSeconds(70), Duration.ofSeconds(3));
    }

    // ---- driving ----------------------------------------------------------------------------------------------------

    /** The direct channel between {@code user} and the bot (made on first use, as the client's createDirectChannel does). */
    String dm(String user) {
        return direct(user, BOT);
    }

    /** {@code user} posts {@code message} in {@code channel} (in the thread {@code rootId} when given); returns the post. */
    ObjectNode say(String user, String channel, String message, String rootId) {
        ObjectNode p = JSON.createObjectNode().put("channel_id", channel).put("message", message);
        if (rootId != null) {
            p.put("root_id", rootId);
        }
        return create(users.get(user), p);
    }

    ObjectNode say(String user, String channel, String message) {
        return say(user, channel, message, null);
    }

    /** {@code user} uploads a file into {@code channel} (as the client's uploadFile does); returns its id. */
    String upload(String user, String channel, String name, String mimeType, byte[] bytes) {
        File f = new File(newId(), channel, name, mimeType, bytes);
        files.put(f.id(), f);
        return f.id();
    }

    /** {@code user} posts {@code message} with uploaded files attached. */
    ObjectNode sayWithFiles(String user, String channel, String message, String... fileIds) {
        ObjectNode p = JSON.createObjectNode().put("channel_id", channel).put("message", message);
        ArrayNode ids = p.putArray("file_ids");
        for (String id : fileIds) {
            ids.add(id);
        }
        return create(users.get(user), p);
    }

    /** Sends {@code frame} as it is to every authenticated connection of the bot. */
    void raw(String frame) {
        for (Conn c : conns) {
            if (BOT.equals(c.userId)) {
                sendTo(c, frame);
            }
        }
    }

    /** The server drops every WebSocket connection (a restart, a network cut). */
    void dropSockets() {
        for (Conn c : conns) {
            c.ctx.closeSession(1001, "going away");
        }
        conns.clear();
    }

    boolean botConnected() {
        return conns.stream().anyMatch(c -> BOT.equals(c.userId));
    }

    /** The bot's posts in {@code channel}, oldest first. */
    List<ObjectNode> botPosts(String channel) {
        return posts.stream().filter(p -> p.path("user_id").asText().equals(BOT) && p.path("channel_id").asText().equals(channel)).toList();
    }

    List<String> botMessages(String channel) {
        return botPosts(channel).stream().map(p -> p.path("message").asText()).toList();
    }

    // ---- server side ------------------------------------------------------------------------------------------------

    private void user(String id, String username, String token, boolean bot) {
        users.put(id, new User(id, username, token, bot));
    }

    private String direct(String a, String b) {
        String name = a.compareTo(b) < 0 ? a + "__" + b : b + "__" + a;
        return channels.values().stream().filter(c -> c.name().equals(name)).findFirst().orElseGet(() -> {
            Channel c = new Channel(newId(), "D", name, "", new LinkedHashSet<>(List.of(a, b)));
            channels.put(c.id(), c);
            return c;
        }).id();
    }

    private void login(Context ctx) throws Exception {
        JsonNode body = JSON.readTree(ctx.body());
        User u = users.values().stream().filter(x -> x.username().equals(body.path("login_id").asText())).findFirst().orElse(null);
        if (u == null || !PASSWORD.equals(body.path("password").asText())) {
            error(ctx, 401, "api.user.login.invalid_credentials_email_username");
            return;
        }
        ctx.header("Token", u.token());
        json(ctx, 200, userJson(u));
    }

    private void channelPosts(Context ctx) {
        withUser(ctx, u -> {
            Channel c = channels.get(ctx.pathParam("id"));
            if (c == null || !c.members().contains(u.id())) {
                error(ctx, 403, "api.context.permissions.app_error");
                return;
            }
            List<ObjectNode> in = posts.stream().filter(p -> p.path("channel_id").asText().equals(c.id())).toList();
            String since = ctx.queryParam("since");
            List<ObjectNode> chosen;
            if (since != null) {
                sinceQueries.add(c.id() + "@" + since);
                long s = Long.parseLong(since);
                chosen = in.stream().filter(p -> p.path("update_at").asLong() > s || p.path("create_at").asLong() > s).toList();
            } else {
                int page = Integer.parseInt(Objects.requireNonNullElse(ctx.queryParam("page"), "0"));
                int perPage = Integer.parseInt(Objects.requireNonNullElse(ctx.queryParam("per_page"), "60"));
                List<ObjectNode> newest = new ArrayList<>(in).reversed();
                chosen = newest.stream().skip((long) page * perPage).limit(perPage).toList().reversed();
            }
            json(ctx, 200, postList(chosen));
        });
    }

    private void thread(Context ctx) {
        withUser(ctx, u -> {
            String root = ctx.pathParam("id");
            json(ctx, 200, postList(posts.stream().filter(p -> p.path("id").asText().equals(root) || p.path("root_id").asText().equals(root))
                    .toList()));
        });
    }

    private static ObjectNode postList(Collection<ObjectNode> chosen) {
        ObjectNode list = JSON.createObjectNode();
        ArrayNode order = list.putArray("order");
        ObjectNode byId = list.putObject("posts");
        new ArrayList<>(chosen).reversed().forEach(p -> {
            order.add(p.path("id").asText());
            byId.set(p.path("id").asText(), p);
        });
        list.put("next_post_id", "").put("prev_post_id", "").put("has_next", false);
        return list;
    }

    private void createPost(Context ctx) throws Exception {
        postAttempts.incrementAndGet();
        User u = bearer(ctx.header("Authorization"));
        if (u == null) {
            error(ctx, 401, "api.context.session_expired.app_error");
            return;
        }
        Integer retryAfter = postRetryAfter.poll();
        if (retryAfter != null) {
            ctx.header("Retry-After", Integer.toString(retryAfter)).header("X-Ratelimit-Reset", Integer.toString(retryAfter))
                    .header("X-Ratelimit-Limit", "10").header("X-Ratelimit-Remaining", "0");
            error(ctx, 429, "api.context.rate_limit_exceeded");
            return;
        }
        JsonNode body = JSON.readTree(ctx.body());
        String pendingId = body.path("pending_post_id").asText("");
        ObjectNode created;
        synchronized (pending) {
            Pending seen = pendingId.isEmpty() ? null : pending.get(pendingId);
            if (seen != null && System.nanoTime() - seen.atNanos() < PENDING_TTL.toNanos()) {
                pendingReplays.incrementAndGet();
                created = posts.stream().filter(p -> p.path("id").asText().equals(seen.postId())).findFirst().orElseThrow();
            } else {
                String message = body.path("message").asText("");
                if (message.codePointCount(0, message.length()) > MattermostAdapter.MAX_TEXT) {
                    error(ctx, 400, "model.post.is_valid.message_length.app_error");
                    return;
                }
                Channel c = channels.get(body.path("channel_id").asText());
                if (c == null || !c.members().contains(u.id())) {
                    error(ctx, 403, "api.context.permissions.app_error");
                    return;
                }
                String root = body.path("root_id").asText("");
                if (!root.isEmpty() && posts.stream().noneMatch(p -> p.path("id").asText().equals(root)
                        && p.path("channel_id").asText().equals(c.id()) && p.path("root_id").asText().isEmpty())) {
                    error(ctx, 400, "api.post.create_post.root_id.app_error");
                    return;
                }
                created = create(u, (ObjectNode) body);
                if (!pendingId.isEmpty()) {
                    pending.put(pendingId, new Pending(created.path("id").asText(), System.nanoTime()));
                }
            }
        }
        Duration delay = answerDelay;
        if (!delay.isZero()) {
            Thread.sleep(delay);
        }
        json(ctx, 201, created);
    }

    /** Makes the post (as the server fills it in) and broadcasts {@code posted} to the channel's members. */
    private ObjectNode create(User u, ObjectNode body) {
        long now = lastMillis.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis()));
        ObjectNode p = JSON.createObjectNode().put("id", newId()).put("create_at", now).put("update_at", now).put("edit_at", 0)
                .put("delete_at", 0).put("is_pinned", false).put("user_id", u.id()).put("channel_id", body.path("channel_id").asText())
                .put("root_id", body.path("root_id").asText("")).put("original_id", "").put("message", body.path("message").asText(""))
                .put("type", "").put("hashtags", "").put("pending_post_id", body.path("pending_post_id").asText("")).put("reply_count", 0);
        ObjectNode props = p.putObject("props");
        if (u.bot()) {
            props.put("from_bot", "true");
        }
        ArrayNode fileIds = p.putArray("file_ids");
        ObjectNode metadata = p.putObject("metadata");
        for (JsonNode id : body.path("file_ids")) {
            File f = files.get(id.asText());
            if (f != null) {
                fileIds.add(f.id());
                metadata.withArray("files").addObject().put("id", f.id()).put("name", f.name()).put("mime_type", f.mimeType())
                        .put("size", f.bytes().length).put("channel_id", f.channelId());
            }
        }
        posts.add(p);
        broadcastPosted(p, u);
        return p;
    }

    private void broadcastPosted(ObjectNode post, User author) {
        Channel c = channels.get(post.path("channel_id").asText());
        if (c == null) {
            return;
        }
        for (Conn conn : conns) {
            if (conn.userId != null && c.members().contains(conn.userId)) {
                ObjectNode data = JSON.createObjectNode().put("channel_display_name", c.displayName()).put("channel_name", c.name())
                        .put("channel_type", c.type()).put("post", post.toString()).put("sender_name", "@" + author.username())
                        .put("set_online", true).put("team_id", "D".equals(c.type()) ? "" : TEAM);
                ObjectNode event = JSON.createObjectNode().put("event", "posted");
                event.set("data", data);
                event.putObject("broadcast").putNull("omit_users").put("user_id", "").put("channel_id", c.id()).put("team_id", "");
                sendEvent(conn, event);
            }
        }
    }

    private void upload(Context ctx) {
        withUser(ctx, u -> {
            String type = ctx.header("Content-Type");
            if (type == null || !type.startsWith("multipart/form-data")) {
                error(ctx, 400, "api.file.upload_file.incorrect_content_type.app_error");
                return;
            }
            MultipartForm form = MultipartForm.parse(type, ctx.bodyAsBytes());
            String channel = form.fields().get("channel_id");
            if (channel == null || !channels.containsKey(channel) || form.files().isEmpty()) {
                error(ctx, 400, "api.file.upload_file.bad_parse.app_error");
                return;
            }
            ObjectNode answer = JSON.createObjectNode();
            ArrayNode infos = answer.putArray("file_infos");
            answer.putArray("client_ids");
            for (MultipartForm.FilePart part : form.files()) {
                File f = new File(newId(), channel, part.fileName(), part.contentType(), part.bytes());
                files.put(f.id(), f);
                infos.addObject().put("id", f.id()).put("user_id", u.id()).put("channel_id", channel).put("name", f.name())
                        .put("mime_type", f.mimeType()).put("size", f.bytes().length);
            }
            json(ctx, 201, answer);
        });
    }

    private void onAction(WsContext ctx, String text) throws Exception {
        Conn c = conns.stream().filter(x -> x.ctx.sessionId().equals(ctx.sessionId())).findFirst().orElse(null);
        if (c == null) {
            return;
        }
        JsonNode msg = JSON.readTree(text);
        long seq = msg.path("seq").asLong();
        ObjectNode reply = JSON.createObjectNode().put("status", "OK").put("seq_reply", seq);
        switch (msg.path("action").asText()) {
            case "authentication_challenge" -> {
                User u = bearer("Bearer " + msg.path("data").path("token").asText());
                if (u == null) {
                    reply.put("status", "FAIL").putObject("error").put("id", "api.web_socket_router.not_authenticated.app_error");
                    sendTo(c, reply.toString());
                    return;
                }
                sendTo(c, reply.toString());
                authenticated(c, u);
            }
            case "ping" -> {
                reply.putObject("data").put("text", "pong").put("version", "10.5.0").put("server_time", System.currentTimeMillis());
                sendTo(c, reply.toString());
            }
            default -> sendTo(c, reply.toString());
        }
    }

    private void authenticated(Conn c, User u) {
        authentications.incrementAndGet();
        c.userId = u.id();
        ObjectNode hello = JSON.createObjectNode().put("event", "hello");
        hello.putObject("data").put("connection_id", c.id).put("server_version", "10.5.0.12345.abc.true").put("server_hostname", "fake");
        hello.putObject("broadcast").putNull("omit_users").put("user_id", u.id()).put("channel_id", "").put("team_id", "");
        sendEvent(c, hello);
    }

    private static void sendEvent(Conn c, ObjectNode event) {
        synchronized (c) {
            event.put("seq", c.seq++);
            sendTo(c, event.toString());
        }
    }

    private static void sendTo(Conn c, String text) {
        synchronized (c.ctx) {
            if (c.ctx.session.isOpen()) {
                c.ctx.send(text);
            }
        }
    }

    private User bearer(String header) {
        // as the server: the scheme is BEARER or TOKEN in any case (the official client sends "BEARER <token>")
        if (header == null || !header.toUpperCase(java.util.Locale.ROOT).matches("(BEARER|TOKEN) .*")) {
            return null;
        }
        String token = header.substring(header.indexOf(' ') + 1).strip();
        return users.values().stream().filter(u -> u.token().equals(token)).findFirst().orElse(null);
    }

    private interface UserAction {
        void run(User u) throws Exception;
    }

    private void withUser(Context ctx, UserAction action) {
        User u = bearer(ctx.header("Authorization"));
        if (u == null) {
            error(ctx, 401, "api.context.session_expired.app_error");
            return;
        }
        try {
            action.run(u);
        } catch (Exception e) {
            error(ctx, 500, "fake.error");
        }
    }

    private static ObjectNode userJson(User u) {
        return JSON.createObjectNode().put("id", u.id()).put("username", u.username()).put("is_bot", u.bot()).put("delete_at", 0);
    }

    private static ObjectNode teamJson() {
        return JSON.createObjectNode().put("id", TEAM).put("name", TEAM_NAME).put("display_name", "Core").put("type", "O");
    }

    private static ObjectNode channelJson(Channel c) {
        return JSON.createObjectNode().put("id", c.id()).put("type", c.type()).put("name", c.name()).put("display_name", c.displayName())
                .put("team_id", "D".equals(c.type()) ? "" : TEAM).put("delete_at", 0);
    }

    private static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status).contentType("application/json").result(body.toString());
    }

    private static void error(Context ctx, int status, String id) {
        json(ctx, status, JSON.createObjectNode().put("id", id).put("message", id).put("status_code", status));
    }

    private String newId() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder sb = new StringBuilder(26);
        for (int i = 0; i < 26; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    @Override
    public void close() {
        app.stop();
    }
}
