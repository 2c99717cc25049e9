package dev.herald.platforms.matrix;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * {@code platforms.matrix:} a Matrix account on a homeserver, over the client-server API ({@code /sync} long poll for
 * events, {@code PUT .../send} for replies). The account signs in with an access token, or with its password once (the
 * token it gets is kept in the store). Who may talk to the agent is set by the shared access keys of every platform.
 * Bound from the configuration, validated, then only read; the adapter's time values, which are not configured, are its
 * {@link Timing}. {@link #toString()} masks both credentials.
 */
public record MatrixSettings(
        @Doc("connect to a Matrix homeserver as a user account")
        boolean enabled,
        @Doc("the homeserver's client-server API base, e.g. https://matrix.example.org (http only to a loopback host)")
        String homeserver,
        @Doc("the bot account's full user id, e.g. \"@herald:example.org\"; required when enabled")
        String userId,
        @Doc("the account's access token (Element: Settings > Help & About > Access Token); this or password is required")
        @EnvOverride({"MATRIX_ACCESS_TOKEN"})
        Secret accessToken,
        @Doc("the account's password, used once to log in (m.login.password) when no access_token is set; the token it gets is kept in the store")
        @EnvOverride({"MATRIX_PASSWORD"})
        Secret password,
        @Doc("the device id to log in as with password; not set = the homeserver picks one")
        String deviceId,
        @Doc("room ids (!abc:example.org) or aliases (#room:example.org) to join at start")
        List<String> rooms,
        @Doc("in rooms with more than two members, only messages that mention the bot (its user id, display name or m.mentions) start a turn")
        boolean requireMention,
        @Doc("Matrix user ids (@alice:example.org) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Matrix user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** A user id: {@code @localpart:server}. */
    static final Pattern USER_ID = Pattern.compile("@[A-Za-z0-9._=/+\\-]{1,200}:[A-Za-z0-9.\\-\\[\\]:]{1,230}");

    /**
     * Time values of the sync loop; not configured (tests shorten them).
     *
     * @param syncTimeout    how long the homeserver may hold one {@code /sync} (the {@code timeout} parameter)
     * @param requestTimeout one request's timeout (a sync waits this much longer than {@code syncTimeout})
     * @param firstSyncWait  how long start waits for the first connection attempt to end
     * @param idlePollDelay  pause after an empty sync that came back early
     * @param reconnectFirst first delay after a failed sync; doubles up to {@code reconnectMax}, with jitter
     * @param reconnectMax   longest delay between attempts
     */
    public record Timing(Duration syncTimeout, Duration requestTimeout, Duration firstSyncWait, Duration idlePollDelay,
            Duration reconnectFirst, Duration reconnectMax) {
        public Timing {
            Objects.requireNonNull(syncTimeout, "syncTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(firstSyncWait, "firstSyncWait");
            Objects.requireNonNull(idlePollDelay, "idlePollDelay");
            Objects.requireNonNull(reconnectFirst, "reconnectFirst");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
        }

        /** 30 s syncs, 15 s requests, start waits up to 20 s, reconnect from 1 s to 60 s. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(30), Duration.ofSeconds(15), Duration.ofSeconds(20), Duration.ofMillis(500),
                    Duration.ofSeconds(1), Duration.ofMinutes(1));
        }

        Backoff backoff() {
            return new Backoff(reconnectFirst, reconnectMax);
        }
    }

    public MatrixSettings {
        accessToken = accessToken == null ? Secret.NONE : accessToken;
        password = password == null ? Secret.NONE : password;
        rooms = PlatformAccess.ids(rooms);
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static MatrixSettings defaults() {
        return new MatrixSettings(false, "https://matrix.example.org", null, Secret.NONE, Secret.NONE, null, List.of(), true, List.of(),
                false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for {@code userId} on {@code homeserver} with an access token; every other key at its default. */
    public static MatrixSettings of(String homeserver, String userId, String accessToken) {
        MatrixSettings d = defaults();
        return new MatrixSettings(true, homeserver, userId, Secret.of(accessToken), Secret.NONE, null, d.rooms, d.requireMention,
                d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    /** These settings logging in with {@code password} instead of a token. */
    public MatrixSettings withPassword(String pass, String device) {
        return new MatrixSettings(enabled, homeserver, userId, Secret.NONE, Secret.of(pass), device, rooms, requireMention, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public MatrixSettings withRooms(List<String> join) {
        return new MatrixSettings(enabled, homeserver, userId, accessToken, password, deviceId, join, requireMention, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public MatrixSettings withAccess(List<String> allowed, UnauthorizedDm unknown) {
        return new MatrixSettings(enabled, homeserver, userId, accessToken, password, deviceId, rooms, requireMention, allowed,
                allowAllUsers, admins, homeChannel, unknown);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(homeserver, "https") || BaseUrl.valid(homeserver, "http") && loopback(BaseUrl.of(homeserver)),
                "homeserver", "must be an https URL such as https://matrix.example.org (http only to a loopback host), was \""
                        + homeserver + "\"");
        if (!enabled) {
            return;
        }
        check.require(userId != null && USER_ID.matcher(userId.strip()).matches(), "user_id",
                "must be the bot account's full user id such as \"@herald:example.org\", was "
                        + (userId == null ? "not set" : "\"" + userId + "\""));
        check.require(accessToken.isSet() || password.isSet(), "access_token", "or " + check.path("password")
                + " is required when " + check.path("enabled") + " is true; set access_token: ${MATRIX_ACCESS_TOKEN}");
        check.require(deviceId == null || deviceId.isBlank() || deviceId.strip().matches("[A-Za-z0-9_.=+-]{1,64}"), "device_id",
                "must be 1-64 letters, digits or _ . = + -, was \"" + deviceId + "\"");
        check.require(rooms.stream().allMatch(r -> r != null && MatrixIds.roomOrAlias(r.strip()) != null), "rooms",
                "must list room ids (!abc:example.org) or aliases (#room:example.org), was " + rooms);
    }

    /** Whether {@code uri}'s host is this machine (127.0.0.0/8, ::1, localhost). */
    static boolean loopback(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        return host.equals("localhost") || host.equals("[::1]") || host.equals("::1") || host.matches("127(\\.\\d{1,3}){3}");
    }

    /** The homeserver base without a trailing slash. */
    URI homeserverUri() {
        return BaseUrl.of(homeserver);
    }

    /** The configured user id, trimmed. */
    String user() {
        return userId == null ? "" : userId.strip();
    }

    /** The configured device id, or null. */
    String device() {
        return deviceId == null || deviceId.isBlank() ? null : deviceId.strip();
    }

    @Override
    public String toString() {
        return "matrix{homeserver=" + homeserver + ", user_id=" + userId + ", access_token=" + accessToken + ", password=" + password
                + ", rooms=" + rooms + ", require_mention=" + requireMention + "}";
    }
}
