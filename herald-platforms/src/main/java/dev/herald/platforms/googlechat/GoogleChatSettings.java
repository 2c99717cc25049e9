package dev.herald.platforms.googlechat;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * {@code platforms.google_chat:} a Google Chat app on an HTTP endpoint: Google Chat POSTs each interaction event to
 * Herald ({@code /platforms/google_chat/events} on the API server's listener) with a bearer JWT that Herald checks,
 * Herald acknowledges at once, and answers asynchronously through the Chat API ({@code spaces.messages.create}) as the
 * app, with a service account's token. Users are Google Chat user ids (the number in {@code users/<id>}); a direct
 * message is a session, in a space each thread is one. The service account's key stays in its file: the settings name
 * the file only.
 */
public record GoogleChatSettings(
        @Doc("receive Google Chat events on the API server's listener (/platforms/google_chat/events) and answer through the Chat API")
        boolean enabled,
        @Doc("what Google Chat's tokens are addressed to, as set under Connection settings > Authentication audience: the Cloud project number (digits), or the endpoint URL; required when enabled")
        String audience,
        @Doc("where the keys that sign Google Chat's tokens are; empty = Google's: the chat service account's JWKS for a project number, Google's OpenID keys for an endpoint URL")
        String jwksUrl,
        @Doc("the JSON key file of the service account the app posts as (the Chat API's app authentication, scope chat.bot); required when enabled")
        @EnvOverride({"GOOGLE_CHAT_SERVICE_ACCOUNT_FILE"})
        String serviceAccountFile,
        @Doc("where the service account's signed assertion is exchanged for a token (JWT-bearer grant); change only for tests")
        String tokenUrl,
        @Doc("the Chat API's root; change only for a proxy or tests")
        String apiBase,
        @Doc("in spaces, answer only messages that @mention the app (or use its slash command); direct messages always count")
        boolean requireMention,
        @Doc("the app's own user (users/<id>), to tell its mentions from other apps'; empty = any app mention counts")
        String appUser,
        @Doc("Google Chat user ids (the number in users/<id>) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who can reach the app talk to the agent")
        boolean allowAllUsers,
        @Doc("user ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String CHAT_ISSUER = "chat@system.gserviceaccount.com";
    public static final String CHAT_JWKS_URL = "https://www.googleapis.com/service_accounts/v1/jwk/" + CHAT_ISSUER;
    public static final String GOOGLE_OIDC_JWKS_URL = "https://www.googleapis.com/oauth2/v3/certs";
    public static final String DEFAULT_TOKEN_URL = "https://oauth2.googleapis.com/token";
    public static final String DEFAULT_API_BASE = "https://chat.googleapis.com";
    /** The scope of the app's own token for the Chat API. */
    static final String SCOPE = "https://www.googleapis.com/auth/chat.bot";
    private static final Pattern PROJECT_NUMBER = Pattern.compile("[0-9]{1,20}");
    private static final Pattern USER = Pattern.compile("[0-9]{1,40}");

    /**
     * Time values; not configured (tests shorten them).
     *
     * @param connectTimeout connecting to the Chat API, the token endpoint or the key endpoint
     * @param requestTimeout one call
     * @param rateLimitWait  how long a send waits after a 429 that names no wait
     * @param keyRefresh     the least time between two fetches of the signing keys for an unknown key id
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration rateLimitWait, Duration keyRefresh) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(keyRefresh, "keyRefresh");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofMinutes(5));
        }
    }

    public GoogleChatSettings {
        audience = audience == null ? "" : audience.strip();
        jwksUrl = jwksUrl == null ? "" : jwksUrl.strip();
        serviceAccountFile = serviceAccountFile == null ? "" : serviceAccountFile.strip();
        tokenUrl = tokenUrl == null || tokenUrl.isBlank() ? DEFAULT_TOKEN_URL : tokenUrl.strip();
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase.strip();
        appUser = appUser == null ? "" : appUser.strip();
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(GoogleChatSettings::userId).toList();
        admins = PlatformAccess.ids(admins).stream().map(GoogleChatSettings::userId).toList();
    }

    public static GoogleChatSettings defaults() {
        return new GoogleChatSettings(false, "", "", "", DEFAULT_TOKEN_URL, DEFAULT_API_BASE, true, "", List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one app, with the endpoints given (tests point them at a fake). */
    public static GoogleChatSettings of(String audience, String jwksUrl, String serviceAccountFile, String tokenUrl, String apiBase) {
        GoogleChatSettings d = defaults();
        return new GoogleChatSettings(true, audience, jwksUrl, serviceAccountFile, tokenUrl, apiBase, d.requireMention, d.appUser, d.allowedUsers,
                d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public GoogleChatSettings withAppUser(String user) {
        return new GoogleChatSettings(enabled, audience, jwksUrl, serviceAccountFile, tokenUrl, apiBase, requireMention, user, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !audience.isEmpty(), "audience", "is required when " + check.path("enabled")
                + " is true: the Cloud project number, or the endpoint URL, as chosen under Authentication audience");
        check.require(audience.isEmpty() || PROJECT_NUMBER.matcher(audience).matches() || BaseUrl.valid(audience, "https", "http"), "audience",
                "must be a project number (digits) or the endpoint's URL, was \"" + audience + "\"");
        check.require(jwksUrl.isEmpty() || BaseUrl.valid(jwksUrl, "https", "http"), "jwks_url", "must be an http(s) URL or empty, was \"" + jwksUrl
                + "\"");
        check.require(!enabled || !serviceAccountFile.isEmpty(), "service_account_file", "is required when " + check.path("enabled")
                + " is true: the path of the service account's JSON key file");
        check.require(BaseUrl.valid(tokenUrl, "http", "https"), "token_url", "must be an http(s) URL such as " + DEFAULT_TOKEN_URL + ", was \""
                + tokenUrl + "\"");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE + ", was \""
                + apiBase + "\"");
        check.require(appUser.isEmpty() || appUser.matches("users/[0-9]{1,40}"), "app_user", "must be users/<number> or empty, was \"" + appUser
                + "\"");
        for (String id : allowedUsers) {
            check.require(id == null || id.equals("*") || USER.matcher(id).matches(), "allowed_users",
                    "must be Google Chat user ids (the number in users/<id>), was \"" + id + "\"");
        }
    }

    /** {@code users/123} as Herald names the user: {@code 123}. */
    static String userId(String given) {
        if (given == null) {
            return null;
        }
        String s = given.strip();
        return s.startsWith("users/") ? s.substring(6) : s;
    }

    /** Whether the audience is the endpoint URL (Google-signed ID tokens) rather than the project number. */
    boolean endpointAudience() {
        return !PROJECT_NUMBER.matcher(audience).matches();
    }

    /** The keys that sign the tokens: {@code jwks_url}, or Google's for the audience's kind. */
    URI keysUri() {
        return URI.create(!jwksUrl.isEmpty() ? jwksUrl : endpointAudience() ? GOOGLE_OIDC_JWKS_URL : CHAT_JWKS_URL);
    }

    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    @Override
    public String toString() {
        return "google_chat{audience=" + audience + ", jwks_url=" + jwksUrl + ", service_account_file=" + serviceAccountFile + ", token_url="
                + tokenUrl + ", api_base=" + apiBase + ", require_mention=" + requireMention + ", app_user=" + appUser + "}";
    }
}
