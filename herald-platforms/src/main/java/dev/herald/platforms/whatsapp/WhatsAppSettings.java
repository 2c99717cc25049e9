package dev.herald.platforms.whatsapp;

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
 * {@code platforms.whatsapp:} a WhatsApp Business number through Meta's Cloud API: Meta calls Herald's webhook
 * ({@code /platforms/whatsapp/webhook} on the API server's listener) with the messages people send, and Herald answers
 * through the Graph API's {@code /<phone_number_id>/messages}. Direct chats only: the Cloud API has no groups, so there is
 * no {@code require_mention}. Users are phone numbers in {@code wa_id} form (country code and number, digits only).
 * Bound from the configuration, validated, then only read; the time values are the adapter's {@link Timing}.
 * {@link #toString()} masks the three secrets.
 */
public record WhatsAppSettings(
        @Doc("receive WhatsApp messages on the API server's listener (/platforms/whatsapp/webhook) and answer through Meta's Cloud API")
        boolean enabled,
        @Doc("the business phone number's id (WhatsApp > API Setup > Phone number ID), not the phone number; required when enabled")
        String phoneNumberId,
        @Doc("a permanent access token of a system user with whatsapp_business_messaging; required when enabled")
        @EnvOverride({"WHATSAPP_ACCESS_TOKEN"})
        Secret accessToken,
        @Doc("the app secret (App settings > Basic), which signs every webhook call (X-Hub-Signature-256); required when enabled")
        @EnvOverride({"WHATSAPP_APP_SECRET"})
        Secret appSecret,
        @Doc("the verify token you type into the webhook's set-up on Meta's console; required when enabled")
        @EnvOverride({"WHATSAPP_VERIFY_TOKEN"})
        Secret verifyToken,
        @Doc("Graph API root with its version; change only for a proxy or tests")
        String apiBase,
        ReplyTemplate replyTemplate,
        @Doc("phone numbers in wa_id form (country code and number, digits only, e.g. 4915112345678) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who writes to the number talk to the agent")
        boolean allowAllUsers,
        @Doc("numbers (wa_id form) that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown number's message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** The Graph API, at the version Herald was built against. */
    public static final String DEFAULT_API_BASE = "https://graph.facebook.com/v21.0";
    private static final Pattern PHONE_NUMBER_ID = Pattern.compile("[0-9]{1,32}");
    private static final Pattern TEMPLATE_NAME = Pattern.compile("[a-z0-9_]{1,512}");
    private static final Pattern LANGUAGE = Pattern.compile("[a-z]{2,3}(_[A-Za-z]{2,4})?");

    /**
     * {@code platforms.whatsapp.reply_template:} an approved message template sent when a reply cannot go out because the
     * chat's 24-hour customer service window is closed (WhatsApp lets a business write freely only within 24 hours of the
     * person's last message). A template without variables that asks the person to write again, e.g. "Your answer is
     * ready: reply to this message to see it."
     */
    public record ReplyTemplate(
            @Doc("the template's name as approved in WhatsApp Manager; not set = no template (the reply fails with a log line)")
            String name,
            @Doc("the template's language code, e.g. en_US")
            String language) implements Validated {
        public ReplyTemplate {
            name = name == null || name.isBlank() ? null : name.strip();
            language = language == null || language.isBlank() ? "en_US" : language.strip();
        }

        public static ReplyTemplate defaults() {
            return new ReplyTemplate(null, "en_US");
        }

        public boolean configured() {
            return name != null;
        }

        @Override
        public void validate(ConfigChecks check) {
            check.require(name == null || TEMPLATE_NAME.matcher(name).matches(), "name",
                    "must be a template name (lower-case letters, digits and _), was \"" + name + "\"");
            check.require(LANGUAGE.matcher(language).matches(), "language", "must be a language code such as en_US or de, was \"" + language + "\"");
        }

        @Override
        public String toString() {
            return name == null ? "none" : name + " (" + language + ")";
        }
    }

    /**
     * Time values of the Graph API client; not configured (tests shorten them).
     *
     * @param connectTimeout  connecting to the Graph API
     * @param requestTimeout  one Graph API call, an upload included
     * @param rateLimitWait   how long a send waits after Meta's rate limit (130429, 429) when the answer names no wait
     * @param typingInterval  the typing indicator lasts 25 s on WhatsApp: it is renewed at most this often per message
     * @param window          the customer service window: free-form messages go out only this long after the person's last
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration rateLimitWait, Duration typingInterval, Duration window) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
            Objects.requireNonNull(typingInterval, "typingInterval");
            Objects.requireNonNull(window, "window");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofHours(24));
        }
    }

    public WhatsAppSettings {
        phoneNumberId = phoneNumberId == null ? "" : phoneNumberId.strip();
        accessToken = accessToken == null ? Secret.NONE : accessToken;
        appSecret = appSecret == null ? Secret.NONE : appSecret;
        verifyToken = verifyToken == null ? Secret.NONE : verifyToken;
        apiBase = apiBase == null || apiBase.isBlank() ? DEFAULT_API_BASE : apiBase.strip();
        replyTemplate = replyTemplate == null ? ReplyTemplate.defaults() : replyTemplate;
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(WhatsAppSettings::waId).toList();
        admins = PlatformAccess.ids(admins).stream().map(WhatsAppSettings::waId).toList();
    }

    public static WhatsAppSettings defaults() {
        return new WhatsAppSettings(false, "", Secret.NONE, Secret.NONE, Secret.NONE, DEFAULT_API_BASE, ReplyTemplate.defaults(), List.of(),
                false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one number, every other key at its default. */
    public static WhatsAppSettings of(String apiBase, String phoneNumberId, String accessToken, String appSecret, String verifyToken) {
        WhatsAppSettings d = defaults();
        return new WhatsAppSettings(true, phoneNumberId, Secret.of(accessToken), Secret.of(appSecret), Secret.of(verifyToken), apiBase,
                d.replyTemplate, d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public WhatsAppSettings withReplyTemplate(ReplyTemplate template) {
        return new WhatsAppSettings(enabled, phoneNumberId, accessToken, appSecret, verifyToken, apiBase, template, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || PHONE_NUMBER_ID.matcher(phoneNumberId).matches(), "phone_number_id", "is required when "
                + check.path("enabled") + " is true: the number's id from WhatsApp > API Setup (digits), was \"" + phoneNumberId + "\"");
        check.require(phoneNumberId.isEmpty() || PHONE_NUMBER_ID.matcher(phoneNumberId).matches(), "phone_number_id",
                "must be digits (the id, not the phone number with + or spaces), was \"" + phoneNumberId + "\"");
        check.require(!enabled || accessToken.isSet(), "access_token", "is required when " + check.path("enabled")
                + " is true: a system user's permanent token, e.g. ${WHATSAPP_ACCESS_TOKEN}");
        check.require(!enabled || appSecret.isSet(), "app_secret", "is required when " + check.path("enabled")
                + " is true: without it Herald cannot tell Meta's webhook calls from forged ones");
        check.require(!enabled || verifyToken.isSet(), "verify_token", "is required when " + check.path("enabled")
                + " is true: the token you also type into the webhook's set-up on Meta's console");
        check.require(BaseUrl.valid(apiBase, "http", "https"), "api_base", "must be an http(s) URL such as " + DEFAULT_API_BASE
                + ", was \"" + apiBase + "\"");
        for (String id : allowedUsers) {
            check.require(id.equals("*") || id.matches("[0-9]{5,20}"), "allowed_users",
                    "must be phone numbers in wa_id form (country code and number, digits only, e.g. 4915112345678), was \"" + id + "\"");
        }
    }

    /** {@code +49 151 1234-5678} as WhatsApp writes a number in {@code wa_id}: digits only. */
    static String waId(String number) {
        if (number == null || number.equals("*")) {
            return number;
        }
        String digits = number.replaceAll("[\\s()+.-]", "");
        return digits.isEmpty() ? number : digits;
    }

    URI apiUri() {
        return BaseUrl.of(apiBase);
    }

    /** The access token, for the one client that sends it. */
    String accessTokenValue() {
        return accessToken.reveal().orElseThrow(() -> new IllegalArgumentException("whatsapp - no access_token; set platforms.whatsapp.access_token"));
    }

    String appSecretValue() {
        return appSecret.reveal().orElseThrow(() -> new IllegalArgumentException("whatsapp - no app_secret; set platforms.whatsapp.app_secret"));
    }

    String verifyTokenValue() {
        return verifyToken.reveal().orElseThrow(() -> new IllegalArgumentException("whatsapp - no verify_token; set platforms.whatsapp.verify_token"));
    }

    @Override
    public String toString() {
        return "whatsapp{phone_number_id=" + phoneNumberId + ", access_token=****, app_secret=****, verify_token=****, api_base=" + apiBase
                + ", reply_template=" + replyTemplate + "}";
    }
}
