package dev.herald.platforms.teams;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * {@code platforms.teams:} a Microsoft Teams bot through the Bot Framework: the Bot Connector POSTs each activity to
 * Herald ({@code /platforms/teams/messages} on the API server's listener) with a JWT that Herald checks against the Bot
 * Framework's OpenID keys, and Herald answers through the Connector REST API at the activity's {@code serviceUrl} with
 * a token of the bot's own (client credentials of the Azure app). Users are Microsoft Entra object ids
 * ({@code from.aadObjectId}); a conversation (a personal chat, a group chat, a channel thread) is a session.
 * {@link #toString()} masks the password.
 */
public record TeamsSettings(
        @Doc("receive Teams messages on the API server's listener (/platforms/teams/messages) and answer through the Bot Connector")
        boolean enabled,
        @Doc("the bot's Microsoft App ID (the Azure Bot's app registration, a GUID); the audience of the Bot Framework's tokens; required when enabled")
        String appId,
        @Doc("a client secret of that app registration; required when enabled")
        @EnvOverride({"TEAMS_APP_PASSWORD"})
        Secret appPassword,
        @Doc("where the bot gets its own token (client credentials): login.microsoftonline.com/<tenant>/oauth2/v2.0/token; botframework.com for a multi-tenant bot, your tenant id for a single-tenant one")
        String tokenUrl,
        @Doc("the Bot Framework's OpenID metadata, whose jwks_uri holds the keys that sign inbound calls; change only for tests")
        String openidMetadataUrl,
        @Doc("the hosts a serviceUrl may be on (Herald posts only there): *.domain for subdomains, or a full origin such as http://127.0.0.1:3978 for a local test")
        List<String> serviceUrlHosts,
        @Doc("hosts whose pre-authenticated file download URLs (file.download.info) Herald fetches, without its token; *.domain for subdomains")
        List<String> fileHosts,
        @Doc("in group chats and channels, answer only messages that @mention the bot")
        boolean requireMention,
        @Doc("Microsoft Entra object ids (from.aadObjectId, a GUID) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone in any tenant the bot is installed in talk to the agent")
        boolean allowAllUsers,
        @Doc("object ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's personal message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String DEFAULT_TOKEN_URL = "https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token";
    public static final String DEFAULT_OPENID_METADATA_URL = "https://login.botframework.com/v1/.well-known/openidconfiguration";
    /** The public Bot Framework service hosts Teams calls from ({@code smba.trafficmanager.net/<region>/}). */
    public static final List<String> DEFAULT_SERVICE_URL_HOSTS = List.of("*.botframework.com", "smba.trafficmanager.net");
    /** Where Teams keeps the files people attach in personal chats (OneDrive and SharePoint). */
    public static final List<String> DEFAULT_FILE_HOSTS = List.of("*.sharepoint.com");
    /** The scope of the bot's token for the Bot Connector. */
    static final String SCOPE = "https://api.botframework.com/.default";
    /** The issuer of the Bot Framework's tokens to bots. */
    static final String ISSUER = "https://api.botframework.com";
    private static final Pattern GUID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HOST_PATTERN = Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+");

    /**
     * Time values; not configured (tests shorten them).
     *
     * @param connectTimeout  connecting to the Connector, the token endpoint or the key endpoint
     * @param requestTimeout  one call
     * @param rateLimitWait   how long a send waits after a 429 that names no wait
     * @param typingInterval  the typing activity is sent at most this often per conversation
     * @param keyRefresh      the least time between two fetches of the signing keys for an unknown key id
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration rateLimitWait, Duration typingInterval, Duration keyRefresh) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(typingInterval, "typingInterval");
            Objects.requireNonNull(keyRefresh, "keyRefresh");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofMinutes(5));
        }
    }

    public TeamsSettings {
        appId = appId == null ? "" : appId.strip();
        appPassword = appPassword == null ? Secret.NONE : appPassword;
        tokenUrl = tokenUrl == null || tokenUrl.isBlank() ? DEFAULT_TOKEN_URL : tokenUrl.strip();
        openidMetadataUrl = openidMetadataUrl == null || openidMetadataUrl.isBlank() ? DEFAULT_OPENID_METADATA_URL : openidMetadataUrl.strip();
        serviceUrlHosts = serviceUrlHosts == null ? DEFAULT_SERVICE_URL_HOSTS
                : serviceUrlHosts.stream().map(h -> h == null ? "" : h.strip().toLowerCase(Locale.ROOT)).toList();
        fileHosts = fileHosts == null ? DEFAULT_FILE_HOSTS : fileHosts.stream().map(h -> h == null ? "" : h.strip().toLowerCase(Locale.ROOT)).toList();
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(u -> u == null ? null : u.strip().toLowerCase(Locale.ROOT)).toList();
        admins = PlatformAccess.ids(admins).stream().map(u -> u == null ? null : u.strip().toLowerCase(Locale.ROOT)).toList();
    }

    public static TeamsSettings defaults() {
        return new TeamsSettings(false, "", Secret.NONE, DEFAULT_TOKEN_URL, DEFAULT_OPENID_METADATA_URL, DEFAULT_SERVICE_URL_HOSTS,
                DEFAULT_FILE_HOSTS, true, List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one bot, with the endpoints and service hosts given (tests point them at a fake). */
    public static TeamsSettings of(String appId, String appPassword, String tokenUrl, String openidMetadataUrl, List<String> serviceUrlHosts) {
        TeamsSettings d = defaults();
        return new TeamsSettings(true, appId, Secret.of(appPassword), tokenUrl, openidMetadataUrl, serviceUrlHosts, d.fileHosts,
                d.requireMention, d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public TeamsSettings withFileHosts(List<String> hosts) {
        return new TeamsSettings(enabled, appId, appPassword, tokenUrl, openidMetadataUrl, serviceUrlHosts, hosts, requireMention, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public TeamsSettings withRequireMention(boolean on) {
        return new TeamsSettings(enabled, appId, appPassword, tokenUrl, openidMetadataUrl, serviceUrlHosts, fileHosts, on, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !appId.isEmpty(), "app_id", "is required when " + check.path("enabled")
                + " is true: the Azure Bot's Microsoft App ID (a GUID)");
        check.require(appId.isEmpty() || GUID.matcher(appId).matches(), "app_id", "must be a GUID such as 00000000-0000-0000-0000-000000000000, was \""
                + appId + "\"");
        check.require(!enabled || appPassword.isSet(), "app_password", "is required when " + check.path("enabled")
                + " is true: a client secret of the app registration, e.g. ${TEAMS_APP_PASSWORD}");
        check.require(BaseUrl.valid(tokenUrl, "http", "https"), "token_url", "must be an http(s) URL such as " + DEFAULT_TOKEN_URL + ", was \""
                + tokenUrl + "\"");
        check.require(BaseUrl.valid(openidMetadataUrl, "http", "https"), "openid_metadata_url", "must be an http(s) URL such as "
                + DEFAULT_OPENID_METADATA_URL + ", was \"" + openidMetadataUrl + "\"");
        for (String h : serviceUrlHosts) {
            check.require(hostRule(h), "service_url_hosts", "must be host names (*.domain for its subdomains) or origins such as "
                    + "http://127.0.0.1:3978, was \"" + h + "\"");
        }
        for (String h : fileHosts) {
            check.require(HOST_PATTERN.matcher(h).matches(), "file_hosts", "must be host names (*.domain for its subdomains), was \"" + h + "\"");
        }
        for (String id : allowedUsers) {
            check.require(id == null || id.equals("*") || GUID.matcher(id).matches(), "allowed_users",
                    "must be Microsoft Entra object ids (GUIDs, from.aadObjectId), was \"" + id + "\"");
        }
    }

    private static boolean hostRule(String h) {
        if (h.contains("://")) {
            return BaseUrl.valid(h, "http", "https") && URI.create(h).getPath().isEmpty();
        }
        return HOST_PATTERN.matcher(h).matches();
    }

    URI tokenUri() {
        return URI.create(tokenUrl);
    }

    String appPasswordValue() {
        return appPassword.reveal().orElseThrow(() -> new IllegalArgumentException("teams - no app_password; set platforms.teams.app_password"));
    }

    @Override
    public String toString() {
        return "teams{app_id=" + appId + ", app_password=****, token_url=" + tokenUrl + ", openid_metadata_url=" + openidMetadataUrl
                + ", service_url_hosts=" + serviceUrlHosts + ", file_hosts=" + fileHosts + ", require_mention=" + requireMention + "}";
    }
}
