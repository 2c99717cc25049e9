package dev.herald.platforms.matrix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A small Matrix homeserver on loopback speaking the client-server endpoints Herald and a plain client use, as the spec
 * documents them: {@code GET /_matrix/client/versions}, {@code POST /login} (m.login.password), {@code GET /account/whoami},
 * profiles, {@code GET /sync} (since, timeout as a real long poll, next_batch as a stream position, an inline or stored
 * filter's timeline types), {@code POST /createRoom}, {@code /join}, {@code /leave}, {@code /invite},
 * {@code GET /joined_members}, {@code PUT /send/{type}/{txnId}} (the same transaction id of the same token answers the
 * first event id and adds nothing), {@code PUT /typing}, {@code POST /_matrix/media/v3/upload} and the authenticated
 * {@code GET /_matrix/client/v1/media/download}. Unknown tokens get 401 {@code M_UNKNOWN_TOKEN}; a send can be answered
 * 429 {@code M_LIMIT_EXCEEDED} with {@code retry_after_ms} on demand. Unknown endpoints get 404 {@code M_UNRECOGNIZED}.
 *
 * <p>Every room's events go into one log, and a sync's {@code next_batch} is {@code s<position>}: a sync with an old token
 * sees the same events again, as on a real homeserver. Tests act as users directly ({@link #say}, {@link #createRoom}).
 */
final class FakeMatrix implements AutoCloseable {
    static final String SERVER = "herald.test";
    static final String BOT = "@herald:herald.test";
    static final String BOT_TOKEN = "syt_bot_secret_token_42";
    static final String BOT_PASSWORD = "bot-secret-password";
    static final String ALICE = "@alice:herald.test";
    static final String BOB = "@bob:herald.test";
    static final String MALLORY = "@mallory:herald.test";

    /** One event of the log. */
    record Logged(int position, String room, ObjectNode event) {
        String sender() {
            return event.path("sender").asText();
        }

        String type() {
            return event.path("type").asText();
        }

        JsonNode content() {
            return event.path("content");
        }

        String body() {
            return content().path("body").asText();
        }
    }

    /** One request as it arrived. */
    record Request(String method, String path, String query, String user, JsonNode body) {
    }

    private static final class Room {
        final String id;
        final Map<String, String> membership = new LinkedHashMap<>();
        boolean encrypted;

        Room(String id) {
            this.id = id;
        }

        int joined() {
            return (int) membership.values().stream().filter("join"::equals).count();
        }
    }

    private final LocalJsonServer http;
    private final Object lock = new Object();
    private final List<Logged> log = new ArrayList<>();
    private final Map<String, Room> rooms = new LinkedHashMap<>();
    private final Map<String, String> aliases = new HashMap<>();
    private final Map<String, String> passwords = new ConcurrentHashMap<>();
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final Map<String, String> displayNames = new ConcurrentHashMap<>();
    private final Map<String, String> txns = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> filters = new ConcurrentHashMap<>();
    private final Map<String, byte[]> media = new ConcurrentHashMap<>();
    private final Map<String, String> mediaTypes = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    final List<Request> requests = new CopyOnWriteArrayList<>();
    final List<String> typing = new CopyOnWriteArrayList<>();
    /** Requests this fake does not serve (answered 404 M_UNRECOGNIZED), as "METHOD path". */
    final List<String> unrecognized = new CopyOnWriteArrayList<>();
    /** How many sends answered with the event of an earlier, equal transaction id. */
    final AtomicInteger txnReplays = new AtomicInteger();
    /** How many sends of the bot arrived, replays and refusals included. */
    final AtomicInteger botSendAttempts = new AtomicInteger();
    /** The next this many sends are answered 429 with {@code retry_after_ms = rateLimitMillis}. */
    final AtomicInteger rateLimitSends = new AtomicInteger();
    volatile long rateLimitMillis = 100;
    /** A delay before a send is answered (after the event is in the room). */
    volatile Duration answerDelay = Duration.ZERO;

    FakeMatrix() {
        passwords.put(BOT, BOT_PASSWORD);
        passwords.put(ALICE, "alice-password");
        passwords.put(BOB, "bob-password");
        passwords.put(MALLORY, "mallory-password");
        tokens.put(BOT_TOKEN, BOT);
        displayNames.put(BOT, "Herald");
        http = new LocalJsonServer(this::handle);
    }

    String baseUrl() {
        return http.baseUrl();
    }

    // ---- what tests do as users ---------------------------------------------------------------

    /** A room {@code creator} made, with {@code joined} in it already; returns its id. */
    String createRoom(String creator, boolean encrypted, String... joined) {
        synchronized (lock) {
            String id = "!room" + ids.incrementAndGet() + ":" + SERVER;
            Room r = new Room(id);
            r.encrypted = encrypted;
            rooms.put(id, r);
            member(r, creator, creator, "join", false);
            for (String u : joined) {
                member(r, u, u, "join", false);
            }
            return id;
        }
    }

    void alias(String alias, String room) {
        aliases.put(alias, room);
    }

    /** {@code inviter} invites {@code invitee} to {@code room}. */
    void invite(String room, String inviter, String invitee, boolean direct) {
        synchronized (lock) {
            member(rooms.get(room), inviter, invitee, "invite", direct);
        }
    }

    /** {@code user} writes {@code content} in {@code room}; returns the event id. */
    String say(String room, String user, ObjectNode content) {
        ObjectNode ev = LocalJsonServer.JSON.createObjectNode();
        ev.put("type", rooms.get(room).encrypted ? "m.room.encrypted" : "m.room.message");
        ev.put("sender", user);
        ev.set("content", rooms.get(room).encrypted ? encrypted() : content);
        return append(room, ev).event().path("event_id").asText();
    }

    /** {@code user} writes plain {@code text} in {@code room}. */
    String text(String room, String user, String text) {
        return say(room, user, content(text));
    }

    /** An event put into {@code room}'s timeline as it is (fuzzed, malformed, of any type). */
    void raw(String room, JsonNode event) {
        synchronized (lock) {
            log.add(new Logged(log.size(), room, event instanceof ObjectNode o ? o : LocalJsonServer.JSON.createObjectNode().set("x", event)));
            lock.notifyAll();
        }
    }

    static ObjectNode content(String text) {
        ObjectNode c = LocalJsonServer.JSON.createObjectNode();
        c.put("msgtype", "m.text");
        c.put("body", text);
        return c;
    }

    /** A message in the thread under {@code root}. */
    static ObjectNode inThread(String text, String root) {
        ObjectNode c = content(text);
        ObjectNode rel = c.putObject("m.relates_to");
        rel.put("rel_type", "m.thread");
        rel.put("event_id", root);
        rel.put("is_falling_back", true);
        rel.putObject("m.in_reply_to").put("event_id", root);
        return c;
    }

    /** An m.file/m.image with content already uploaded by the test; returns the mxc URI. */
    String upload(byte[] bytes, String type) {
        String id = "media" + ids.incrementAndGet();
        media.put(id, bytes);
        mediaTypes.put(id, type);
        return "mxc://" + SERVER + "/" + id;
    }

    /** Every event the bot sent to {@code room}, in order. */
    List<Logged> botEvents(String room) {
        return events(e -> e.room().equals(room) && e.sender().equals(BOT) && e.type().equals("m.room.message"));
    }

    List<Logged> events(Predicate<Logged> which) {
        synchronized (lock) {
            return log.stream().filter(which).toList();
        }
    }

    String membership(String room, String user) {
        synchronized (lock) {
            return rooms.get(room).membership.get(user);
        }
    }

    byte[] media(String mxc) {
        return media.get(mxc.substring(mxc.lastIndexOf('/') + 1));
    }

    /** Every request to a path containing {@code part}. */
    List<Request> requests(String method, String part) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().contains(part)).toList();
    }

    /** Revokes every token of {@code user} (a logout elsewhere). */
    void revokeTokens(String user) {
        tokens.values().removeIf(user::equals);
    }

    @Override
    public void close() {
        http.close();
    }

    // ---- the log --------------------------------------------------------------------------------

    private static ObjectNode encrypted() {
        ObjectNode c = LocalJsonServer.JSON.createObjectNode();
        c.put("algorithm", "m.megolm.v1.aes-sha2");
        c.put("ciphertext", "AwgAEnACgAkLmt6qF84IK++J7UDH2Za1YVchHyprqTqsg2yyOwAtHaZTwyNg37afzg8f3r9IsN9r4RNFg7MaZencUJe4qvELiDiopUjy5wYVDAtqdBzer5bWRD9ldxp1FLgbQvBcjkkywYjCsmsq6+hArLd9oAQZnGKn/qLsK+5uNX3PaWzDRC9wZPQvWYYPCTov3jCwXKTPsLKIiTrcCXDqMvnn8m+T3zF/I2zqxg158tnUwWWIw51UO");
        c.put("device_id", "RJYKSTBOIE");
        c.put("sender_key", "IlRMeOPX2e0MurIyfWEucYBRVOEEUMrOHqn/8mLqMjA");
        c.put("session_id", "X3lUlvLELLYxeTx4yOVu6UDpasGEVO0Jbu+QFnm0cKQ");
        return c;
    }

    private Logged append(String room, ObjectNode ev) {
        synchronized (lock) {
            ev.put("event_id", "$ev" + ids.incrementAndGet() + "_" + Integer.toHexString(room.hashCode()));
            ev.put("room_id", room);
            ev.put("origin_server_ts", System.currentTimeMillis());
            Logged l = new Logged(log.size(), room, ev);
            log.add(l);
            lock.notifyAll();
            return l;
        }
    }

    private void member(Room r, String sender, String user, String membership, boolean direct) {
        r.membership.put(user, membership);
        ObjectNode ev = LocalJsonServer.JSON.createObjectNode();
        ev.put("type", "m.room.member");
        ev.put("sender", sender);
        ev.put("state_key", user);
        ObjectNode c = ev.putObject("content").put("membership", membership);
        if (direct) {
            c.put("is_direct", true);
        }
        if (displayNames.containsKey(user)) {
            c.put("displayname", displayNames.get(user));
        }
        append(r.id, ev);
    }

    // ---- HTTP -----------------------------------------------------------------------------------

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            URI uri = ex.getRequestURI();
            String path = uri.getRawPath();
            String method = ex.getRequestMethod();
            Map<String, String> query = query(uri.getRawQuery());
            byte[] raw = ex.getRequestBody().readAllBytes();
            String contentType = ex.getRequestHeaders().getFirst("Content-Type");
            JsonNode body = null;
            if (raw.length > 0 && contentType != null && contentType.startsWith("application/json")) {
                try {
                    body = LocalJsonServer.JSON.readTree(raw);
                } catch (IOException e) {
                    error(ex, 400, "M_NOT_JSON", "Content not JSON.");
                    return;
                }
            }
            if (method.equals("OPTIONS")) {
                ex.sendResponseHeaders(204, -1);
                return;
            }
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : query.get("access_token");
            String user = token == null ? null : tokens.get(token);
            requests.add(new Request(method, path, uri.getRawQuery(), user, body));
            if (path.equals("/_matrix/client/versions")) {
                ObjectNode v = LocalJsonServer.JSON.createObjectNode();
                v.putArray("versions").add("v1.1").add("v1.5").add("v1.11");
                v.putObject("unstable_features");
                LocalJsonServer.reply(ex, 200, v);
                return;
            }
            if (path.equals("/_matrix/client/v3/login")) {
                login(ex, method, body);
                return;
            }
            if (path.startsWith("/_matrix/client/v3/profile/")) {
                String who = decode(path.substring("/_matrix/client/v3/profile/".length()).split("/")[0]);
                ObjectNode p = LocalJsonServer.JSON.createObjectNode();
                p.put("displayname", displayNames.getOrDefault(who, who.substring(1, who.indexOf(':'))));
                LocalJsonServer.reply(ex, 200, p);
                return;
            }
            if (!path.startsWith("/_matrix/")) {
                error(ex, 404, "M_UNRECOGNIZED", "Unrecognized request");
                return;
            }
            if (user == null) {
                error(ex, 401, token == null ? "M_MISSING_TOKEN" : "M_UNKNOWN_TOKEN", token == null ? "Missing access token" : "Unknown access token");
                return;
            }
            route(ex, method, path, query, user, token, body, raw, contentType);
        } catch (RuntimeException e) {
            error(ex, 500, "M_UNKNOWN", "fake: " + e);
        }
    }

    private void route(HttpExchange ex, String method, String path, Map<String, String> query, String user, String token, JsonNode body,
            byte[] raw, String contentType) throws IOException {
        String c = "/_matrix/client/v3";
        String[] seg = path.split("/");
        if (path.equals(c + "/account/whoami")) {
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("user_id", user).put("device_id", "HERALDDEV"));
        } else if (path.equals(c + "/sync")) {
            sync(ex, user, query);
        } else if (path.startsWith(c + "/user/") && path.endsWith("/filter") && method.equals("POST")) {
            String id = "f" + ids.incrementAndGet();
            filters.put(id, body == null ? LocalJsonServer.JSON.createObjectNode() : body);
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("filter_id", id));
        } else if (path.startsWith(c + "/user/") && path.contains("/filter/")) {
            JsonNode f = filters.get(seg[seg.length - 1]);
            if (f == null) {
                error(ex, 404, "M_NOT_FOUND", "No such filter");
            } else {
                LocalJsonServer.reply(ex, 200, f);
            }
        } else if (path.equals(c + "/pushrules/") || path.equals(c + "/pushrules")) {
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.readTree("{\"global\":{\"override\":[],\"content\":[],\"room\":[],\"sender\":[],\"underride\":[]}}"));
        } else if (path.equals(c + "/capabilities")) {
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.readTree("{\"capabilities\":{}}"));
        } else if (path.equals(c + "/createRoom") && method.equals("POST")) {
            String room = createRoom(user, false);
            for (JsonNode invitee : body == null ? LocalJsonServer.JSON.createArrayNode() : body.path("invite")) {
                invite(room, user, invitee.asText(), body.path("is_direct").asBoolean(false));
            }
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("room_id", room));
        } else if (path.startsWith(c + "/join/") || path.startsWith(c + "/rooms/") && path.endsWith("/join")) {
            String target = decode(path.startsWith(c + "/join/") ? path.substring((c + "/join/").length()) : seg[seg.length - 2]);
            join(ex, user, aliases.getOrDefault(target, target));
        } else if (path.startsWith(c + "/rooms/")) {
            roomCall(ex, method, decode(seg[5]), seg, user, token, body);
        } else if (path.equals("/_matrix/media/v3/upload") && method.equals("POST")) {
            String id = "media" + ids.incrementAndGet();
            media.put(id, raw);
            mediaTypes.put(id, contentType == null ? "application/octet-stream" : contentType);
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("content_uri", "mxc://" + SERVER + "/" + id));
        } else if (path.startsWith("/_matrix/client/v1/media/download/")) {
            byte[] bytes = seg.length > 7 && seg[6].equals(SERVER) ? media.get(seg[7]) : null;
            if (bytes == null) {
                error(ex, 404, "M_NOT_FOUND", "Not found");
                return;
            }
            ex.getResponseHeaders().add("Content-Type", mediaTypes.get(seg[7]));
            ex.sendResponseHeaders(200, bytes.length);
            ex.getResponseBody().write(bytes);
        } else {
            error(ex, 404, "M_UNRECOGNIZED", "Unrecognized request");
        }
    }

    private void roomCall(HttpExchange ex, String method, String roomId, String[] seg, String user, String token, JsonNode body)
            throws IOException {
        Room room;
        synchronized (lock) {
            room = rooms.get(roomId);
        }
        if (room == null) {
            error(ex, 404, "M_NOT_FOUND", "Unknown room");
            return;
        }
        String action = seg.length > 6 ? seg[6] : "";
        switch (action) {
            case "leave" -> {
                synchronized (lock) {
                    member(room, user, user, "leave", false);
                }
                LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode());
            }
            case "invite" -> {
                invite(roomId, user, body.path("user_id").asText(), false);
                LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode());
            }
            case "joined_members" -> {
                ObjectNode out = LocalJsonServer.JSON.createObjectNode();
                ObjectNode joined = out.putObject("joined");
                synchronized (lock) {
                    room.membership.forEach((u, m) -> {
                        if (m.equals("join")) {
                            joined.putObject(u).put("display_name", displayNames.getOrDefault(u, u));
                        }
                    });
                }
                LocalJsonServer.reply(ex, 200, out);
            }
            case "typing" -> {
                if (body != null && body.path("typing").asBoolean()) {
                    typing.add(roomId);
                }
                LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode());
            }
            case "send" -> send(ex, room, seg, user, token, body);
            case "members", "messages", "state", "read_markers", "receipt" ->
                    LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.readTree("{\"chunk\":[]}"));
            default -> error(ex, 404, "M_UNRECOGNIZED", "Unrecognized request");
        }
    }

    private void send(HttpExchange ex, Room room, String[] seg, String user, String token, JsonNode body) throws IOException {
        if (seg.length < 9 || body == null || !body.isObject()) {
            error(ex, 400, "M_BAD_JSON", "Bad send");
            return;
        }
        if (user.equals(BOT)) {
            botSendAttempts.incrementAndGet();
        }
        if (rateLimitSends.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            ObjectNode e = LocalJsonServer.JSON.createObjectNode().put("errcode", "M_LIMIT_EXCEEDED").put("error", "Too many requests")
                    .put("retry_after_ms", rateLimitMillis);
            LocalJsonServer.reply(ex, 429, e);
            return;
        }
        String eventId;
        synchronized (lock) {
            if (!"join".equals(room.membership.get(user))) {
                error(ex, 403, "M_FORBIDDEN", "User " + user + " not in room " + room.id);
                return;
            }
            String txnKey = token + "|" + decode(seg[8]);
            eventId = txns.get(txnKey);
            if (eventId != null) {
                txnReplays.incrementAndGet();
            } else {
                ObjectNode ev = LocalJsonServer.JSON.createObjectNode();
                ev.put("type", decode(seg[7]));
                ev.put("sender", user);
                ev.set("content", body);
                ev.putObject("unsigned").put("transaction_id", decode(seg[8]));
                eventId = append(room.id, ev).event().path("event_id").asText();
                txns.put(txnKey, eventId);
            }
        }
        if (!answerDelay.isZero()) {
            try {
                Thread.sleep(answerDelay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("event_id", eventId));
    }

    private void login(HttpExchange ex, String method, JsonNode body) throws IOException {
        if (method.equals("GET")) {
            LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.readTree("{\"flows\":[{\"type\":\"m.login.password\"}]}"));
            return;
        }
        String user = body == null ? "" : body.path("identifier").path("user").asText(body.path("user").asText(""));
        if (!user.startsWith("@")) {
            user = "@" + user + ":" + SERVER;
        }
        if (body == null || !"m.login.password".equals(body.path("type").asText())
                || !body.path("password").asText("").equals(passwords.get(user))) {
            error(ex, 403, "M_FORBIDDEN", "Invalid username or password");
            return;
        }
        String token = "syt_" + user.substring(1, user.indexOf(':')) + "_" + ids.incrementAndGet() + "_" + System.nanoTime();
        tokens.put(token, user);
        ObjectNode out = LocalJsonServer.JSON.createObjectNode();
        out.put("user_id", user).put("access_token", token).put("device_id", body.path("device_id").asText("DEV" + ids.get()))
                .put("home_server", SERVER);
        LocalJsonServer.reply(ex, 200, out);
    }

    private void join(HttpExchange ex, String user, String roomId) throws IOException {
        synchronized (lock) {
            Room room = rooms.get(roomId);
            if (room == null) {
                error(ex, 404, "M_NOT_FOUND", "No known servers");
                return;
            }
            if (!"join".equals(room.membership.get(user))) {
                member(room, user, user, "join", false);
            }
        }
        LocalJsonServer.reply(ex, 200, LocalJsonServer.JSON.createObjectNode().put("room_id", roomId));
    }

    /** A long poll over the log: what {@code user} may see after {@code since}, waiting up to {@code timeout} for something. */
    private void sync(HttpExchange ex, String user, Map<String, String> query) throws IOException {
        int since = query.containsKey("since") ? parsePosition(query.get("since")) : -1;
        if (since == -2) {
            error(ex, 400, "M_INVALID_PARAM", "bad since");
            return;
        }
        long timeout = Math.min(30_000, Long.parseLong(query.getOrDefault("timeout", "0")));
        JsonNode filter = filter(query.get("filter"));
        long deadline = System.currentTimeMillis() + timeout;
        ObjectNode out;
        synchronized (lock) {
            while (true) {
                out = syncBody(user, since, filter);
                long left = deadline - System.currentTimeMillis();
                if (since < 0 || out.path("rooms").path("join").size() + out.path("rooms").path("invite").size()
                        + out.path("rooms").path("leave").size() > 0 || left <= 0) {
                    break;
                }
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        LocalJsonServer.reply(ex, 200, out);
    }

    private ObjectNode syncBody(String user, int since, JsonNode filter) {
        ObjectNode out = LocalJsonServer.JSON.createObjectNode();
        out.put("next_batch", "s" + log.size());
        ObjectNode join = LocalJsonServer.JSON.createObjectNode();
        ObjectNode invite = LocalJsonServer.JSON.createObjectNode();
        ObjectNode leave = LocalJsonServer.JSON.createObjectNode();
        JsonNode types = filter.path("room").path("timeline").path("types");
        int limit = filter.path("room").path("timeline").path("limit").asInt(20);
        for (Room room : rooms.values()) {
            String m = room.membership.get(user);
            if ("join".equals(m)) {
                List<Logged> timeline = new ArrayList<>();
                boolean memberChange = since < 0;
                for (Logged l : log) {
                    if (l.room().equals(room.id) && l.position() > since && (types.isMissingNode() || contains(types, l.type()))) {
                        timeline.add(l);
                        memberChange |= l.type().equals("m.room.member");
                    }
                }
                if (since < 0 && timeline.size() > limit) {
                    timeline = timeline.subList(timeline.size() - limit, timeline.size());
                }
                if (timeline.isEmpty() && since >= 0) {
                    continue;
                }
                ObjectNode r = join.putObject(room.id);
                ArrayNode events = r.putObject("timeline").put("limited", false).put("prev_batch", "s" + Math.max(0, since)).putArray("events");
                timeline.forEach(l -> events.add(l.event()));
                ArrayNode state = r.putObject("state").putArray("events");
                if (since < 0) {
                    for (Logged l : log) {
                        if (l.room().equals(room.id) && l.type().equals("m.room.member") && !timeline.contains(l)) {
                            state.add(l.event());
                        }
                    }
                }
                if (memberChange) {
                    r.putObject("summary").put("m.joined_member_count", room.joined()).put("m.invited_member_count", 0);
                }
                r.putObject("ephemeral").putArray("events");
                r.putObject("account_data").putArray("events");
                r.putObject("unread_notifications").put("highlight_count", 0).put("notification_count", 0);
            } else if ("invite".equals(m)) {
                Logged inv = null;
                for (Logged l : log) {
                    if (l.room().equals(room.id) && l.type().equals("m.room.member") && l.event().path("state_key").asText().equals(user)) {
                        inv = l;
                    }
                }
                if (inv != null && inv.position() > since) {
                    ArrayNode st = invite.putObject(room.id).putObject("invite_state").putArray("events");
                    if (room.encrypted) {
                        st.addObject().put("type", "m.room.encryption").put("state_key", "").put("sender", inv.sender())
                                .putObject("content").put("algorithm", "m.megolm.v1.aes-sha2");
                    }
                    st.add(inv.event());
                }
            } else if ("leave".equals(m) && since >= 0) {
                for (Logged l : log) {
                    if (l.room().equals(room.id) && l.position() > since && l.type().equals("m.room.member")
                            && l.event().path("state_key").asText().equals(user)) {
                        leave.putObject(room.id).putObject("timeline").putArray("events").add(l.event());
                    }
                }
            }
        }
        ObjectNode rooms = out.putObject("rooms");
        rooms.set("join", join);
        rooms.set("invite", invite);
        rooms.set("leave", leave);
        out.putObject("presence").putArray("events");
        out.putObject("account_data").putArray("events");
        return out;
    }

    private JsonNode filter(String f) {
        if (f == null) {
            return LocalJsonServer.JSON.createObjectNode();
        }
        if (f.startsWith("{")) {
            try {
                return LocalJsonServer.JSON.readTree(f);
            } catch (IOException e) {
                return LocalJsonServer.JSON.createObjectNode();
            }
        }
        return filters.getOrDefault(f, LocalJsonServer.JSON.createObjectNode());
    }

    private static boolean contains(JsonNode types, String type) {
        for (JsonNode t : types) {
            if (t.asText().equals(type)) {
                return true;
            }
        }
        return false;
    }

    private static int parsePosition(String since) {
        try {
            return since.startsWith("s") ? Integer.parseInt(since.substring(1)) - 1 : -2;
        } catch (NumberFormatException e) {
            return -2;
        }
    }

    private void error(HttpExchange ex, int status, String errcode, String error) throws IOException {
        if (errcode.equals("M_UNRECOGNIZED")) {
            unrecognized.add(ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath());
        }
        LocalJsonServer.reply(ex, status, LocalJsonServer.JSON.createObjectNode().put("errcode", errcode).put("error", error));
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
            }
        }
        return out;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
