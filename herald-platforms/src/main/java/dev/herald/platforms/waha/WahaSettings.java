package dev.herald.platforms.waha;

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
import java.util.regex.Pattern;

/**
 * {@code platforms.waha:} WhatsApp on a personal number through a self-hosted WAHA bridge ("WhatsApp HTTP API",
 * devlikeapro). WAHA keeps the WhatsApp session; Herald only speaks its documented HTTP API: WAHA POSTs its webhook
 * events to {@code /platforms/waha/webhook} on the API server's listener (signed with HMAC-SHA512), Herald answers
 * through {@code /api/sendText}, {@code /api/sendImage} and {@code /api/sendFile} with the {@code X-Api-Key} header,
 * and polls {@code GET /api/sessions/<session>} for the session's status. Users are phone numbers, digits only (a
 * WhatsApp id {@code 4915112345678@c.us} is {@code 4915112345678}); a sender WhatsApp shows only by its hidden id is
 * {@code <id>@lid}. Bound from the configuration, validated, then only read; {@link #toString()} masks the secrets.
 */
public record WahaSettings(
        @Doc("receive WhatsApp messages from a WAHA bridge on the API server's listener (/platforms/waha/webhook) and answer through WAHA's HTTP API")
        boolean enabled,
        @Doc("WAHA's base URL as Herald reaches it, e.g. http://127.0.0.1:3000; media is fetched from this host only; required when enabled")
        String url,
        @Doc("the WAHA session (one WhatsApp number) Herald answers for")
        String session,
        @Doc("WAHA's API key (WAHA_API_KEY), sent as X-Api-Key; required when enabled")
        @EnvOverride({"WAHA_API_KEY"})
        Secret apiKey,
        @Doc("the webhook's HMAC key as configured in WAHA (webhooks[].hmac.key or WHATSAPP_HOOK_HMAC_KEY); unsigned calls are refused; required when enabled")
        @EnvOverride({"WAHA_HMAC_KEY"})
        Secret hmacKey,
        @Doc("in groups, only messages that @mention the number (or answer its message) start a turn; direct messages always do")
        boolean requireMention,
        @Doc("phone numbers, digits only (e.g. 4915112345678), or a hidden id such as 123456789@lid, allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who writes to the number talk to the agent")
        boolean allowAllUsers,
        @Doc("numbers (digits only) that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown number's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String DEFAULT_SESSION = "default";
    private static final Pattern SESSION = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern USER = Pattern.compile("[0-9]{5,20}|[0-9]{1,32}@lid");

    /**
     * Time values of the WAHA client; not configured (tests shorten them).
     *
     * @param connectTimeout  connecting to WAHA
     * @param requestTimeout  one WAHA call, a file send included
     * @param statusInterval  how often the session's status is polled
     * @param typingInterval  the typing indicator is renewed at most this often per chat
     * @param rateLimitWait   how long a send waits after WAHA's 429 when it names no wait
     * @param maxEventAge     a signed event whose timestamp is older than this (or this far in the future) is refused as a replay
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration statusInterval, Duration typingInterval,
            Duration rateLimitWait, Duration maxEventAge) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(statusInterval, "statusInterval");
            Objects.requireNonNull(typingInterval, "typingInterval");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(maxEventAge, "maxEventAge");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(10),
                    Duration.ofSeconds(5), Duration.ofHours(6));
        }
    }

    public WahaSettings {
        url = url == null ? "" : url.strip();
        session = session == null || session.isBlank() ? DEFAULT_SESSION : session.strip();
        apiKey = apiKey == null ? Secret.NONE : apiKey;
        hmacKey = hmacKey == null ? Secret.NONE : hmacKey;
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(WahaSettings::userId).toList();
        admins = PlatformAccess.ids(admins).stream().map(WahaSettings::userId).toList();
    }

    public static WahaSettings defaults() {
        return new WahaSettings(false, "", DEFAULT_SESSION, Secret.NONE, Secret.NONE, true, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one WAHA session, every other key at its default. */
    public static WahaSettings of(String url, String session, String apiKey, String hmacKey) {
        WahaSettings d = defaults();
        return new WahaSettings(true, url, session, Secret.of(apiKey), Secret.of(hmacKey), d.requireMention, d.allowedUsers, d.allowAllUsers,
                d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public WahaSettings withRequireMention(boolean require) {
        return new WahaSettings(enabled, url, session, apiKey, hmacKey, require, allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !url.isEmpty(), "url", "is required when " + check.path("enabled")
                + " is true: WAHA's base URL as Herald reaches it, e.g. http://127.0.0.1:3000");
        check.require(url.isEmpty() || BaseUrl.valid(url, "http", "https"), "url", "must be an http(s) URL such as http://127.0.0.1:3000, was \""
                + url + "\"");
        check.require(SESSION.matcher(session).matches(), "session", "must be a WAHA session name (letters, digits, _ and -), was \"" + session + "\"");
        check.require(!enabled || apiKey.isSet(), "api_key", "is required when " + check.path("enabled")
                + " is true: the key WAHA was started with (WAHA_API_KEY), e.g. ${WAHA_API_KEY}");
        check.require(!enabled || hmacKey.isSet(), "hmac_key", "is required when " + check.path("enabled")
                + " is true: without it Herald cannot tell WAHA's webhook calls from forged ones; set the same key in WAHA's webhook hmac.key");
        for (String id : allowedUsers) {
            check.require(id.equals("*") || USER.matcher(id).matches(), "allowed_users",
                    "must be phone numbers, digits only with the country code (e.g. 4915112345678), or <id>@lid, was \"" + id + "\"");
        }
    }

    /** {@code +49 151 1234-5678} or {@code 4915112345678@c.us} as Herald names the user: {@code 4915112345678}. */
    static String userId(String number) {
        if (number == null || number.equals("*")) {
            return number;
        }
        String s = number.strip();
        if (s.endsWith("@c.us") || s.endsWith("@s.whatsapp.net")) {
            s = s.substring(0, s.indexOf('@'));
        }
        if (s.endsWith("@lid")) {
            return s;
        }
        String digits = s.replaceAll("[\\s()+.-]", "");
        return digits.isEmpty() ? s : digits;
    }

    URI baseUri() {
        return BaseUrl.of(url);
    }

    /** The API key, for the one client that sends it. */
    String apiKeyValue() {
        return apiKey.reveal().orElseThrow(() -> new IllegalArgumentException("waha - no api_key; set platforms.waha.api_key"));
    }

    String hmacKeyValue() {
        return hmacKey.reveal().orElseThrow(() -> new IllegalArgumentException("waha - no hmac_key; set platforms.waha.hmac_key"));
    }

    @Override
    public String toString() {
        return "waha{url=" + url + ", session=" + session + ", api_key=****, hmac_key=****, require_mention=" + requireMention + "}";
    }
}
