package dev.herald.platforms.dingtalk;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code platforms.dingtalk:} a DingTalk (钉钉) robot of an internal app, in Stream mode (the default: Herald opens the
 * connection, {@code gateway/connections/open}, then a WebSocket, so it needs no public address) or in HTTP mode (DingTalk
 * POSTs each message, signed, to {@code /platforms/dingtalk/robot} on the API server's listener). Replies go through the message's
 * {@code sessionWebhook} while it is valid, else through the robot send API with an access token. Users are staff ids
 * ({@code senderStaffId}). {@link #toString()} masks the secret.
 */
public record DingTalkSettings(
        @Doc("connect the DingTalk robot (see mode)")
        boolean enabled,
        @Doc("stream: Herald opens DingTalk's Stream connection (no public address needed); http: DingTalk POSTs messages to /platforms/dingtalk/robot on the API server's listener")
        String mode,
        @Doc("the app's Client ID (AppKey), from Credentials & Basic Info; required when enabled")
        String clientId,
        @Doc("the app's Client Secret (AppSecret); required when enabled")
        @EnvOverride({"DINGTALK_CLIENT_SECRET"})
        Secret clientSecret,
        @Doc("the robot's code (robotCode) for the send and file APIs; empty = the Client ID, which it is for most apps")
        String robotCode,
        @Doc("DingTalk OpenAPI base (Stream gateway, tokens, robot send and files); change only for a proxy or tests")
        String apiBase,
        @Doc("DingTalk's older API base (oapi), for uploading the agent's files; change only for a proxy or tests")
        String oapiBase,
        @Doc("hosts files may be downloaded from besides DingTalk's own; for a proxy or tests only")
        List<String> extraFileHosts,
        @Doc("in group chats, only messages that @-mention the robot start a turn")
        boolean requireMention,
        @Doc("send replies as DingTalk markdown (title + text); false = plain text")
        boolean markdown,
        @Doc("staff ids (senderStaffId) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let every member who can message the robot talk to the agent")
        boolean allowAllUsers,
        @Doc("staff ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String STREAM = "stream";
    public static final String HTTP = "http";
    /** DingTalk's OpenAPI host. */
    public static final String DEFAULT_API_BASE = "https://api.dingtalk.com";
    /** DingTalk's older API host, which takes file uploads. */
    public static final String DEFAULT_OAPI_BASE = "https://oapi.dingtalk.com";
    /** Where DingTalk serves the files a {@code downloadUrl} names. */
    static final List<String> DINGTALK_FILE_HOSTS = List.of("down.dingtalk.com", "static.dingtalk.com", "dingtalk-file.oss-cn-hangzhou.aliyuncs.com",
            "dingtalk-file.oss-accelerate.aliyuncs.com");

    /**
     * Time values of the connection and the API client; not configured (tests shorten them).
     *
     * @param reconnectInitial first reconnection delay (growing to {@code reconnectMax} with jitter)
     * @param reconnectMax     longest reconnection delay
     * @param connectTimeout   HTTP and WebSocket connection timeout
     * @param idleTimeout      a connection that heard nothing (DingTalk pings every few seconds) this long is replaced
     * @param requestTimeout   one API call
     * @param timestampWindow  how far a signed HTTP-mode request's {@code timestamp} may be from Herald's clock (DingTalk: one hour)
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration idleTimeout,
            Duration requestTimeout, Duration timestampWindow) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(timestampWindow, "timestampWindow");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(10), Duration.ofSeconds(90),
                    Duration.ofSeconds(30), Duration.ofHours(1));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public DingTalkSettings {
        mode = mode == null || mode.isBlank() ? STREAM : mode.strip().toLowerCase(java.util.Locale.ROOT);
        clientId = clientId == null ? "" : clientId.strip();
        clientSecret = clientSecret == null ? Secret.NONE : clientSecret;
        robotCode = robotCode == null ? "" : robotCode.strip();
        apiBase = apiBase == null ? DEFAULT_API_BASE : apiBase;
        oapiBase = oapiBase == null ? DEFAULT_OAPI_BASE : oapiBase;
        extraFileHosts = extraFileHosts == null ? List.of() : List.copyOf(extraFileHosts);
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static DingTalkSettings defaults() {
        return new DingTalkSettings(false, STREAM, "", Secret.NONE, "", DEFAULT_API_BASE, DEFAULT_OAPI_BASE, List.of(), true, true, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one app against the real DingTalk. */
    public static DingTalkSettings of(String clientId, String clientSecret) {
        DingTalkSettings d = defaults();
        return new DingTalkSettings(true, STREAM, clientId, Secret.of(clientSecret), "", d.apiBase, d.oapiBase, d.extraFileHosts, d.requireMention, d.markdown,
                d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    /** These settings against {@code base} (a test's fake), whose host may also serve files. */
    public DingTalkSettings withApiBase(URI base) {
        return new DingTalkSettings(enabled, mode, clientId, clientSecret, robotCode, base.toString(), base.toString(), List.of(base.getHost()), requireMention,
                markdown, allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public DingTalkSettings withClientSecret(String secret) {
        return new DingTalkSettings(enabled, mode, clientId, Secret.of(secret), robotCode, apiBase, oapiBase, extraFileHosts, requireMention, markdown,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public DingTalkSettings withMarkdown(boolean asMarkdown) {
        return new DingTalkSettings(enabled, mode, clientId, clientSecret, robotCode, apiBase, oapiBase, extraFileHosts, requireMention, asMarkdown,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public DingTalkSettings withRequireMention(boolean required) {
        return new DingTalkSettings(enabled, mode, clientId, clientSecret, robotCode, apiBase, oapiBase, extraFileHosts, required, markdown, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    /** These settings in {@code newMode} (stream or http). */
    public DingTalkSettings withMode(String newMode) {
        return new DingTalkSettings(enabled, newMode, clientId, clientSecret, robotCode, apiBase, oapiBase, extraFileHosts, requireMention, markdown,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    boolean http() {
        return mode.equals(HTTP);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(mode.equals(STREAM) || mode.equals(HTTP), "mode", "must be stream or http, was \"" + mode + "\"");
        check.require(!enabled || !clientId.isEmpty(), "client_id", "is required when " + check.path("enabled")
                + " is true: the app's Client ID (AppKey)");
        check.require(!enabled || clientSecret.isSet(), "client_secret", "is required when " + check.path("enabled")
                + " is true: the app's Client Secret (AppSecret)");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL, was \"" + apiBase + "\"");
        check.require(BaseUrl.valid(oapiBase, "http", "https"), "oapi_base", "must be an http(s) URL, was \"" + oapiBase + "\"");
    }

    /** The API base without a trailing slash. */
    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The oapi base without a trailing slash. */
    URI oapiUri() {
        return BaseUrl.of(oapiBase);
    }

    /** The robot code for the send and file APIs. */
    String robot() {
        return robotCode.isEmpty() ? clientId : robotCode;
    }

    /** DingTalk's file hosts and the configured extra ones. */
    List<String> fileHosts() {
        List<String> all = new ArrayList<>(DINGTALK_FILE_HOSTS);
        extraFileHosts.forEach(h -> all.add(h.strip().toLowerCase(java.util.Locale.ROOT)));
        return all;
    }

    String secretValue() {
        return clientSecret.reveal().orElseThrow(() -> new IllegalArgumentException("dingtalk - no client_secret; set platforms.dingtalk.client_secret"));
    }

    @Override
    public String toString() {
        return "dingtalk{mode=" + mode + ", client_id=" + clientId + ", client_secret=****, api_base=" + apiBase + ", require_mention=" + requireMention + "}";
    }
}
