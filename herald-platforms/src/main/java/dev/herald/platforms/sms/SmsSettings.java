package dev.herald.platforms.sms;

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
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code platforms.sms:} SMS and MMS through Twilio: Twilio calls Herald's webhook ({@code /platforms/sms/webhook} on the
 * API server's listener) with each message people send to the number, signed with the account's auth token, and Herald
 * answers through Twilio's Messages API. One session per phone number; there are no groups. Users are phone numbers in
 * E.164 form ({@code +4915112345678}). Bound from the configuration, validated, then only read; the time values are the
 * adapter's {@link Timing}. {@link #toString()} masks the two secrets.
 */
public record SmsSettings(
        @Doc("receive SMS/MMS from Twilio on the API server's listener (/platforms/sms/webhook) and answer through Twilio's Messages API")
        boolean enabled,
        @Doc("the Twilio account's SID (AC followed by 32 hex digits); required when enabled")
        String accountSid,
        @Doc("the account's auth token: it signs every webhook call (X-Twilio-Signature) and, without api_key_sid, authenticates the API calls; required when enabled")
        @EnvOverride({"TWILIO_AUTH_TOKEN"})
        Secret authToken,
        @Doc("an API key's SID (SK...) to authenticate the API calls with instead of the auth token; empty = use the auth token")
        String apiKeySid,
        @Doc("the API key's secret, with api_key_sid")
        @EnvOverride({"TWILIO_API_KEY_SECRET"})
        Secret apiKeySecret,
        @Doc("the Twilio number answers are sent from, in E.164 form (+15017122661); this or messaging_service_sid is required when enabled")
        String from,
        @Doc("a Messaging Service SID (MG...) to send from instead of from; empty = send from the number")
        String messagingServiceSid,
        @Doc("the public base URL Twilio reaches Herald's API server at, e.g. https://herald.example.com (with a path prefix if the proxy adds one): "
                + "webhook signatures are checked over it (needed when a proxy changes the URL), and the agent's files are sent as MMS from it; "
                + "empty = signatures over the URL as requested, and files are not sent (a line says so)")
        String publicUrl,
        @Doc("the text a HELP or INFO message is answered with")
        String helpText,
        @Doc("Twilio's API root: the Messages API and the only host media is fetched from; change only for a proxy or tests")
        String apiBase,
        @Doc("phone numbers in E.164 form (+4915112345678) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who texts the number talk to the agent")
        boolean allowAllUsers,
        @Doc("numbers (E.164) that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown number's message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** Twilio's REST API. */
    public static final String DEFAULT_API_BASE = "https://api.twilio.com";
    public static final String DEFAULT_HELP_TEXT = "This number answers with an AI assistant. Reply STOP to stop messages, START to resume.";
    private static final Pattern ACCOUNT_SID = Pattern.compile("AC[0-9a-fA-F]{32}");
    private static final Pattern KEY_SID = Pattern.compile("SK[0-9a-fA-F]{32}");
    private static final Pattern SERVICE_SID = Pattern.compile("MG[0-9a-fA-F]{32}");
    static final Pattern E164 = Pattern.compile("\\+[1-9][0-9]{5,14}");

    /**
     * Time values of the Twilio client; not configured (tests shorten them).
     *
     * @param connectTimeout connecting to Twilio's API
     * @param requestTimeout one API call or media download
     * @param rateLimitWait  how long a send waits after a 429 or a 5xx that names no Retry-After
     * @param fileLinkLife   how long a link to one of the agent's files (a MediaUrl Twilio fetches) stays valid
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration rateLimitWait, Duration fileLinkLife) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(fileLinkLife, "fileLinkLife");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofHours(4));
        }
    }

    public SmsSettings {
        accountSid = accountSid == null ? "" : accountSid.strip();
        authToken = authToken == null ? Secret.NONE : authToken;
        apiKeySid = apiKeySid == null ? "" : apiKeySid.strip();
        apiKeySecret = apiKeySecret == null ? Secret.NONE : apiKeySecret;
        from = from == null ? "" : e164(from);
        messagingServiceSid = messagingServiceSid == null ? "" : messagingServiceSid.strip();
        publicUrl = publicUrl == null ? "" : publicUrl.strip();
        helpText = helpText == null || helpText.isBlank() ? DEFAULT_HELP_TEXT : helpText.strip();
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase.strip();
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(SmsSettings::e164).toList();
        admins = PlatformAccess.ids(admins).stream().map(SmsSettings::e164).toList();
    }

    public static SmsSettings defaults() {
        return new SmsSettings(false, "", Secret.NONE, "", Secret.NONE, "", "", "", DEFAULT_HELP_TEXT, DEFAULT_API_BASE, List.of(), false,
                List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one account and number, every other key at its default. */
    public static SmsSettings of(String apiBase, String accountSid, String authToken, String from) {
        SmsSettings d = defaults();
        return new SmsSettings(true, accountSid, Secret.of(authToken), "", Secret.NONE, from, "", "", d.helpText, apiBase, d.allowedUsers,
                d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public SmsSettings withPublicUrl(String url) {
        return new SmsSettings(enabled, accountSid, authToken, apiKeySid, apiKeySecret, from, messagingServiceSid, url, helpText, apiBase,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public SmsSettings withApiKey(String sid, String secret) {
        return new SmsSettings(enabled, accountSid, authToken, sid, Secret.of(secret), from, messagingServiceSid, publicUrl, helpText, apiBase,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public SmsSettings withHelpText(String text) {
        return new SmsSettings(enabled, accountSid, authToken, apiKeySid, apiKeySecret, from, messagingServiceSid, publicUrl, text, apiBase,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || ACCOUNT_SID.matcher(accountSid).matches(), "account_sid", "is required when " + check.path("enabled")
                + " is true: the account's SID from Twilio's console (AC and 32 hex digits), was \"" + accountSid + "\"");
        check.require(accountSid.isEmpty() || ACCOUNT_SID.matcher(accountSid).matches(), "account_sid",
                "must be AC followed by 32 hex digits, was \"" + accountSid + "\"");
        check.require(!enabled || authToken.isSet(), "auth_token", "is required when " + check.path("enabled")
                + " is true: without it Herald cannot tell Twilio's webhook calls from forged ones, e.g. ${TWILIO_AUTH_TOKEN}");
        check.require(apiKeySid.isEmpty() || KEY_SID.matcher(apiKeySid).matches(), "api_key_sid",
                "must be SK followed by 32 hex digits, was \"" + apiKeySid + "\"");
        check.require(apiKeySid.isEmpty() || apiKeySecret.isSet(), "api_key_secret", "is required with " + check.path("api_key_sid"));
        check.require(from.isEmpty() || E164.matcher(from).matches(), "from", "must be a phone number in E.164 form such as +15017122661, was \""
                + from + "\"");
        check.require(messagingServiceSid.isEmpty() || SERVICE_SID.matcher(messagingServiceSid).matches(), "messaging_service_sid",
                "must be MG followed by 32 hex digits, was \"" + messagingServiceSid + "\"");
        check.require(!enabled || !from.isEmpty() || !messagingServiceSid.isEmpty(), "from", "is required when " + check.path("enabled")
                + " is true (or set " + check.path("messaging_service_sid") + "): the Twilio number answers are sent from");
        check.require(publicUrl.isEmpty() || BaseUrl.valid(publicUrl, "http", "https") && URI.create(publicUrl).getRawQuery() == null,
                "public_url", "must be an http(s) URL without a query such as https://herald.example.com, was \"" + publicUrl + "\"");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE + ", was \""
                + apiBase + "\"");
        check.require(helpText.length() <= SmsAdapter.MAX_MESSAGE, "help_text", "must be at most " + SmsAdapter.MAX_MESSAGE
                + " characters (one Twilio message), was " + helpText.length());
        for (String id : allowedUsers) {
            check.require(id.equals("*") || E164.matcher(id).matches(), "allowed_users",
                    "must be phone numbers in E.164 form (+, country code and number, e.g. +4915112345678), was \"" + id + "\"");
        }
    }

    /** {@code +49 151 1234-5678} as Twilio writes a number: {@code +} and digits only. */
    static String e164(String number) {
        if (number == null || number.equals("*")) {
            return number;
        }
        String clean = number.replaceAll("[\\s().-]", "");
        return clean.isEmpty() ? number : clean;
    }

    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The public base URL without a trailing slash, when set. */
    Optional<String> publicBase() {
        return publicUrl.isEmpty() ? Optional.empty() : Optional.of(BaseUrl.of(publicUrl).toString());
    }

    String authTokenValue() {
        return authToken.reveal().orElseThrow(() -> new IllegalArgumentException("sms - no auth_token; set platforms.sms.auth_token"));
    }

    /** The user and password of the API calls: the API key when one is set, else the account SID and auth token. */
    String[] apiCredentials() {
        if (!apiKeySid.isEmpty()) {
            return new String[] {apiKeySid, apiKeySecret.reveal().orElseThrow(
                    () -> new IllegalArgumentException("sms - no api_key_secret; set platforms.sms.api_key_secret"))};
        }
        return new String[] {accountSid, authTokenValue()};
    }

    @Override
    public String toString() {
        return "sms{account_sid=" + accountSid + ", auth_token=****, api_key_sid=" + apiKeySid + ", api_key_secret=****, from=" + from
                + ", messaging_service_sid=" + messagingServiceSid + ", public_url=" + publicUrl + ", api_base=" + apiBase + "}";
    }
}
