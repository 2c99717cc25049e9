package dev.herald.platforms.mattermost;

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
 * {@code platforms.mattermost:} a Mattermost bot account over the server's WebSocket API (events) and REST API v4
 * (replies, files, catch-up). Who may talk to the agent is set by the shared access keys of every platform; Mattermost
 * user ids are matched (usernames can be renamed, ids cannot). Bound from the configuration, validated, then only read;
 * the adapter's time values, which are not configured, are its {@link Timing}. {@link #toString()} masks the token.
 */
public record MattermostSettings(
        @Doc("connect to a Mattermost server as a bot account")
        boolean enabled,
        @Doc("the server's address, e.g. https://chat.example.org (http only to a loopback host); required when enabled")
        String url,
        @Doc("the bot account's access token (Integrations > Bot Accounts); required when enabled")
        @EnvOverride({"MATTERMOST_TOKEN"})
        Secret token,
        @Doc("team name (as in the team's URL) the bot works in; empty = every team the bot is a member of")
        String team,
        @Doc("channel ids or names the bot answers in besides direct messages; empty = every channel it is a member of; or a map from each to its own settings (model, personality, tools, busy_input, require_mention), keyed by channel id where it has settings")
        List<String> channels,
        @Doc("in channels, only posts that @mention the bot start a turn (direct messages always do)")
        boolean requireMention,
        @Doc("Mattermost user ids (26 characters, not usernames) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let any Mattermost user who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** A Mattermost id: 26 characters of lower-case letters and digits. */
    static final Pattern ID = Pattern.compile("[a-z0-9]{26}");

    /**
     * Time values of the connection lifecycle; not configured (tests shorten them).
     *
     * @param reconnectInitial first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax     longest reconnection delay
     * @param connectTimeout   WebSocket and HTTP connection timeout; also how long the authentication and {@code hello} may take
     * @param pingInterval     how often Herald pings the WebSocket ({@code ping} action)
     * @param idleTimeout      a connection that has heard nothing (not even a pong) this long is replaced
     * @param requestTimeout   one REST request's timeout
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration pingInterval,
            Duration idleTimeout, Duration requestTimeout) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(10), Duration.ofSeconds(30),
                    Duration.ofSeconds(75), Duration.ofSeconds(20));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public MattermostSettings {
        url = url == null ? "" : url.strip();
        token = token == null ? Secret.NONE : token;
        team = team == null ? "" : team.strip();
        channels = PlatformAccess.ids(channels);
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static MattermostSettings defaults() {
        return new MattermostSettings(false, "", Secret.NONE, "", List.of(), true, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for a server and a bot token: every team and channel, mentions required in channels. */
    public static MattermostSettings of(String url, String token) {
        MattermostSettings d = defaults();
        return new MattermostSettings(true, url, Secret.of(token), d.team, d.channels, d.requireMention, d.allowedUsers, d.allowAllUsers,
                d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public MattermostSettings withTeam(String name) {
        return new MattermostSettings(enabled, url, token, name, channels, requireMention, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    public MattermostSettings withChannels(List<String> ids) {
        return new MattermostSettings(enabled, url, token, team, ids, requireMention, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    public MattermostSettings withRequireMention(boolean required) {
        return new MattermostSettings(enabled, url, token, team, channels, required, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    public MattermostSettings withToken(String value) {
        return new MattermostSettings(enabled, url, Secret.of(value), team, channels, requireMention, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !url.isEmpty(), "url", "is required when " + check.path("enabled")
                + " is true: the server's address, e.g. https://chat.example.org");
        check.require(url.isEmpty() || BaseUrl.valid(url, "https", "http"), "url", "must be an https URL, was \"" + url + "\"");
        check.require(url.isEmpty() || !BaseUrl.valid(url, "http") || loopback(BaseUrl.of(url)), "url",
                "must use https (http only to a loopback host such as 127.0.0.1), was \"" + url + "\"");
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled")
                + " is true: the bot account's access token (Integrations > Bot Accounts > Create New Token)");
        check.require(allowedUsers.stream().allMatch(MattermostSettings::userIdOrStar), "allowed_users",
                "must be Mattermost user ids (26 lower-case letters and digits, shown in System Console > Users > the user), not "
                        + "usernames; was " + allowedUsers.stream().filter(u -> !userIdOrStar(u)).findFirst().orElse(""));
        check.require(admins.stream().allMatch(MattermostSettings::userIdOrStar), "admins",
                "must be Mattermost user ids (26 lower-case letters and digits), not usernames; was "
                        + admins.stream().filter(u -> !userIdOrStar(u)).findFirst().orElse(""));
        check.require(channels.stream().allMatch(c -> c != null && !c.isBlank() && c.length() <= 64), "channels",
                "must be a list of channel ids or names (as in the channel's URL) without empty entries");
    }

    private static boolean userIdOrStar(String u) {
        return u != null && ("*".equals(u.strip()) || ID.matcher(u.strip()).matches());
    }

    /** Whether {@code uri}'s host is this machine (127.0.0.0/8, ::1, localhost). */
    static boolean loopback(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1") || host.matches("127(\\.\\d{1,3}){3}");
    }

    /** The server's address without a trailing slash. */
    URI serverUri() {
        return BaseUrl.of(url);
    }

    /** The REST API root, {@code <url>/api/v4}. */
    String apiRoot() {
        return serverUri() + "/api/v4";
    }

    /** The WebSocket address, {@code ws(s)://<host>/api/v4/websocket}. */
    URI websocketUri() {
        URI s = serverUri();
        String scheme = "https".equalsIgnoreCase(s.getScheme()) ? "wss" : "ws";
        return URI.create(scheme + s.toString().substring(s.getScheme().length()) + "/api/v4/websocket");
    }

    /** The token, for the Authorization header and the WebSocket's authentication challenge only. */
    String tokenValue() {
        return token.reveal().orElseThrow(() -> new IllegalArgumentException("mattermost - no token; set platforms.mattermost.token"));
    }

    @Override
    public String toString() {
        return "mattermost{url=" + url + ", token=****, team=" + (team.isEmpty() ? "(all)" : team) + ", channels="
                + (channels.isEmpty() ? "(all)" : channels) + ", require_mention=" + requireMention + "}";
    }
}
