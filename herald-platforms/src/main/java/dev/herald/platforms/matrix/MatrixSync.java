package dev.herald.platforms.matrix;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.common.LongPoll;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code /sync} loop ({@link LongPoll} runs it): sign in once, join the configured rooms, then long-poll with the
 * stored {@code next_batch} token and hand each message to the gateway; only after the whole batch was accepted is the
 * new token stored (in the store's platform state). A crash in between reads the batch again with the old token, and
 * the store's dedupe by event id drops what it had already stored.
 *
 * <p>A fresh start (no stored token) does one sync without waiting and skips its timeline: only events after Herald
 * started count (pending invites are handled). Invites from allowed users (and, with {@code unauthorized_dm: pair}, direct
 * chat invites from anyone, so they can get a pairing code) are joined, others declined. The first encrypted event in a
 * room gets one plain-text notice that encrypted rooms are not read, remembered in the platform state.
 *
 * <p>Sign-in: the configured access token, else the token a password login stored earlier, else a password login now
 * (its token stored for the next start). A rejected token ({@code M_UNKNOWN_TOKEN}) fails the first attempt naming
 * the key; later, with a password, the loop logs in again. One writer: only the loop's thread calls this class.
 */
final class MatrixSync implements LongPoll.Source<MatrixEvents.Item> {
    private static final Logger log = LoggerFactory.getLogger(MatrixSync.class);

    static final String NEXT_BATCH = "next_batch";
    static final String TOKEN = "access_token";
    static final String TOKEN_USER = "access_token_user";
    static final String E2EE_TOLD = "e2ee_told:";

    /** Only messages, memberships and encrypted events, no presence, account data or receipts. */
    static final String FILTER = """
            {"presence":{"not_types":["*"]},"account_data":{"not_types":["*"]},"room":{"account_data":{"not_types":["*"]},\
            "ephemeral":{"not_types":["*"]},"state":{"types":["m.room.member"],"lazy_load_members":true},\
            "timeline":{"types":["m.room.message","m.room.encrypted","m.room.member"],"limit":50}}}""";
    /** The first sync of a fresh start: its timeline is skipped anyway. */
    static final String FIRST_FILTER = FILTER.replace("\"limit\":50", "\"limit\":1");
    static final String E2EE_NOTICE = "This room is end-to-end encrypted, and Herald cannot read encrypted messages: they are not "
            + "supported. Please talk to me in a room without encryption.";

    /** How the first attempt went: start() waits for it. */
    enum First {
        CONNECTED,
        REJECTED,
        FAILING
    }

    private final Platform platform;
    private final MatrixSettings settings;
    private final MatrixSettings.Timing timing;
    private final MatrixApi api;
    private final MatrixEvents events;
    private final PlatformState state;
    private final LongPoll<MatrixEvents.Item> loop;
    private final CompletableFuture<First> first = new CompletableFuture<>();
    private final Map<String, Integer> members = new ConcurrentHashMap<>();
    private volatile String rejection;
    private boolean signedIn;
    private String pendingNext;

    MatrixSync(Platform platform, MatrixSettings settings, MatrixSettings.Timing timing, MatrixApi api, MatrixEvents events,
            PlatformState state, InboundSink sink) {
        this.platform = platform;
        this.settings = settings;
        this.timing = timing;
        this.api = api;
        this.events = events;
        this.state = state;
        this.loop = new LongPoll<>(platform, this, sink, timing.backoff(), timing.idlePollDelay(), ConnectionState.CONNECTING, "syncing");
    }

    CompletableFuture<First> start() {
        loop.firstPoll().thenAccept(ok -> first.complete(ok ? First.CONNECTED : First.FAILING));
        loop.start();
        return first;
    }

    /** Why the credentials were refused, for start's message. */
    String rejection() {
        return rejection;
    }

    void stop() {
        loop.stop();
    }

    @Override
    public LongPoll.Poll<MatrixEvents.Item> poll() throws IOException {
        if (!signedIn) {
            LongPoll.Failed<MatrixEvents.Item> failed = signIn();
            if (failed != null) {
                return failed;
            }
        }
        String since = state.get(platform, NEXT_BATCH).orElse(null);
        boolean fresh = since == null;
        MatrixApi.Answer a;
        try {
            a = api.sync(since, fresh ? FIRST_FILTER : FILTER, fresh ? Duration.ZERO : timing.syncTimeout());
        } catch (HttpTimeoutException e) {
            pendingNext = null;
            return new LongPoll.Batch<>(List.of());
        }
        if (a.unknownToken()) {
            return tokenRejected(a);
        }
        if (!a.ok()) {
            return new LongPoll.Failed<>(a.problem(), a.retryAfter());
        }
        MatrixEvents.Sync sync = MatrixEvents.parse(a.body(), settings.user());
        if (sync.nextBatch() == null) {
            return new LongPoll.Failed<>("the sync answer has no next_batch (not JSON, or not a sync response); its events are not read", null);
        }
        pendingNext = sync.nextBatch();
        if (fresh) {
            List<MatrixEvents.Item> kept = sync.items().stream().filter(i -> !(i instanceof MatrixEvents.RoomEvent)).toList();
            log.info("{} - first sync of a fresh start: {} earlier event(s) skipped; only events from now on are answered", platform,
                    sync.items().size() - kept.size());
            return new LongPoll.Batch<>(kept);
        }
        return new LongPoll.Batch<>(sync.items());
    }

    @Override
    public Optional<MessageEvent> event(MatrixEvents.Item item) {
        return switch (item) {
            case MatrixEvents.Members m -> {
                members.put(m.room(), m.joined());
                yield Optional.empty();
            }
            case MatrixEvents.MembershipChanged m -> {
                members.remove(m.room());
                yield Optional.empty();
            }
            case MatrixEvents.Invite i -> {
                invited(i);
                yield Optional.empty();
            }
            case MatrixEvents.RoomEvent e when e.type().equals("m.room.encrypted") -> {
                encrypted(e.room(), e.sender(), e.eventId());
                yield Optional.empty();
            }
            case MatrixEvents.RoomEvent e -> events.message(e, memberCount(e.room()) <= 2);
        };
    }

    /** Stores the new token only when every item of the batch went through. */
    @Override
    public void acknowledge(List<MatrixEvents.Item> items, int accepted) {
        if (accepted == items.size() && pendingNext != null) {
            state.put(platform, Map.of(NEXT_BATCH, pendingNext));
        }
    }

    @Override
    public String describe(IOException e) {
        return api.describe(e);
    }

    @Override
    public String notStored(MatrixEvents.Item item, RuntimeException e) {
        log.warn("{} - an event of room {} could not be stored ({}); the batch is not acknowledged and will be read again", platform,
                item.room(), e.toString());
        return "the gateway could not store a message";
    }

    // ---- signing in --------------------------------------------------------------------------

    /** Checks the homeserver, gets a working token and joins the configured rooms; null when done. */
    private LongPoll.Failed<MatrixEvents.Item> signIn() throws IOException {
        MatrixApi.Answer v = api.versions();
        if (!v.ok() || !v.body().path("versions").isArray()) {
            return new LongPoll.Failed<>(settings.homeserver() + " does not answer as a Matrix homeserver (" + v.problem()
                    + " at /_matrix/client/versions); check platforms.matrix.homeserver", v.retryAfter());
        }
        boolean fromStore = false;
        if (settings.accessToken().isSet()) {
            api.useToken(settings.accessToken().reveal().orElseThrow());
        } else {
            Optional<String> stored = state.get(platform, TOKEN).filter(t -> settings.user().equals(state.get(platform, TOKEN_USER).orElse("")));
            if (stored.isPresent()) {
                api.useToken(stored.get());
                fromStore = true;
            } else {
                LongPoll.Failed<MatrixEvents.Item> failed = login();
                if (failed != null) {
                    return failed;
                }
            }
        }
        MatrixApi.Answer who = api.whoami();
        if (who.unknownToken() && fromStore) {
            log.info("{} - the token of the earlier password login was rejected ({}); logging in again", platform, who.errcode());
            LongPoll.Failed<MatrixEvents.Item> failed = login();
            if (failed != null) {
                return failed;
            }
            who = api.whoami();
        }
        if (who.unknownToken()) {
            return tokenRejected(who);
        }
        if (!who.ok()) {
            return new LongPoll.Failed<>(who.problem(), who.retryAfter());
        }
        String me = who.body().path("user_id").asText("");
        if (!me.equals(settings.user())) {
            return rejected("the access token belongs to " + (MatrixIds.user(who.body().path("user_id")) == null ? "another user" : me)
                    + ", not to " + settings.user() + "; check platforms.matrix.user_id and access_token");
        }
        try {
            MatrixApi.Answer name = api.displayName(settings.user());
            if (name.ok() && name.body().path("displayname").isTextual()) {
                events.displayName(name.body().path("displayname").asText());
            }
        } catch (IOException e) {
            log.debug("{} - reading the display name failed ({}); mentions by user id only", platform, api.describe(e));
        }
        for (String room : settings.rooms()) {
            MatrixApi.Answer j = api.join(room.strip());
            if (j.ok()) {
                log.info("{} - joined {}", platform, room);
            } else {
                log.warn("{} - could not join {} listed in platforms.matrix.rooms ({}); it is tried again at the next start", platform, room,
                        j.problem());
            }
        }
        signedIn = true;
        log.info("{} - signed in as {} on {} (display name \"{}\")", platform, me, settings.homeserver(), events.displayName());
        return null;
    }

    private LongPoll.Failed<MatrixEvents.Item> login() throws IOException {
        if (!settings.password().isSet()) {
            return rejected("no access token: set platforms.matrix.access_token or password");
        }
        api.useToken(null);
        MatrixApi.Answer a = api.login(settings.user(), settings.password().reveal().orElseThrow(), settings.device());
        if (a.status() == 403 || a.status() == 400 || a.status() == 401) {
            return rejected("the homeserver refused the password login (" + a.problem() + "); check platforms.matrix.password and user_id");
        }
        if (!a.ok() || !a.body().path("access_token").isTextual()) {
            return new LongPoll.Failed<>(a.problem(), a.retryAfter());
        }
        String token = a.body().path("access_token").asText();
        api.useToken(token);
        state.put(platform, Map.of(TOKEN, token, TOKEN_USER, settings.user()));
        log.info("{} - logged in with the password as device {}; the access token is kept in the store", platform,
                a.body().path("device_id").asText("?"));
        return null;
    }

    private LongPoll.Failed<MatrixEvents.Item> tokenRejected(MatrixApi.Answer a) {
        signedIn = false;
        if (settings.password().isSet() && !settings.accessToken().isSet() && first.isDone()) {
            state.put(platform, Map.of(TOKEN, "", TOKEN_USER, ""));
            return new LongPoll.Failed<>("the access token was rejected (" + a.errcode() + "); logging in with the password again", null);
        }
        String key = settings.accessToken().isSet() ? "platforms.matrix.access_token" : "platforms.matrix.password";
        return rejected("the access token was rejected (HTTP " + a.status() + " " + a.errcode() + "); check " + key);
    }

    private LongPoll.Failed<MatrixEvents.Item> rejected(String why) {
        rejection = "matrix - " + why;
        first.complete(First.REJECTED);
        return new LongPoll.Failed<>(why, null);
    }

    // ---- rooms -------------------------------------------------------------------------------

    private int memberCount(String room) {
        Integer known = members.get(room);
        if (known != null) {
            return known;
        }
        try {
            MatrixApi.Answer a = api.joinedMembers(room);
            if (a.ok() && a.body().path("joined").isObject()) {
                int n = a.body().path("joined").size();
                members.put(room, n);
                return n;
            }
            log.info("{} - reading the members of {} failed ({}); treating it as a group room", platform, room, a.problem());
        } catch (IOException e) {
            log.info("{} - reading the members of {} failed ({}); treating it as a group room", platform, room, api.describe(e));
        }
        return Integer.MAX_VALUE;
    }

    private void invited(MatrixEvents.Invite i) {
        boolean allowed = settings.allowAllUsers() || settings.allowedUsers().contains("*") || settings.allowedUsers().contains(i.inviter())
                || settings.admins().contains(i.inviter());
        boolean pairing = !allowed && i.direct() && settings.pairsUnknownUsers();
        try {
            if (!allowed && !pairing) {
                MatrixApi.Answer a = api.leave(i.room());
                log.info("{} - declined the invite to {} from {}: not in allowed_users{}", platform, i.room(), i.inviter(),
                        a.ok() ? "" : " (" + a.problem() + ")");
                return;
            }
            MatrixApi.Answer a = api.join(i.room());
            if (!a.ok()) {
                log.warn("{} - could not join {} on the invite from {} ({})", platform, i.room(), i.inviter(), a.problem());
                return;
            }
            members.remove(i.room());
            log.info("{} - joined {} on the invite from {}{}", platform, i.room(), i.inviter(), pairing ? " (a direct chat: for pairing)" : "");
            if (i.encrypted()) {
                encrypted(i.room(), i.inviter(), null);
            }
        } catch (IOException e) {
            log.warn("{} - answering the invite to {} failed ({}); it is answered at the next fresh start", platform, i.room(), api.describe(e));
        }
    }

    /** Tells the room once that its encrypted messages are not read; the event itself is skipped. */
    private void encrypted(String room, String sender, String eventId) {
        if (state.get(platform, E2EE_TOLD + room).isPresent()) {
            log.debug("{} - encrypted event {} in {} skipped (not supported)", platform, eventId, room);
            return;
        }
        log.warn("{} - room {} is end-to-end encrypted ({}from {}); Herald does not read encrypted rooms: the room is told once, "
                + "its encrypted messages are skipped", platform, room, eventId == null ? "invite " : "event " + eventId + " ", sender);
        try {
            MatrixApi.Answer a = api.send(room, "m.room.message", "herald-e2ee-" + Integer.toHexString(room.hashCode()),
                    Map.of("msgtype", "m.notice", "body", E2EE_NOTICE));
            if (a.ok()) {
                state.put(platform, Map.of(E2EE_TOLD + room, a.body().path("event_id").asText("sent")));
            } else {
                log.warn("{} - telling {} that encrypted rooms are not supported failed ({})", platform, room, a.problem());
            }
        } catch (IOException e) {
            log.warn("{} - telling {} that encrypted rooms are not supported failed ({})", platform, room, api.describe(e));
        }
    }
}
