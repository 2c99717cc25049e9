package dev.herald.platforms.bluebubbles;

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

/**
 * {@code platforms.bluebubbles:} iMessage through a BlueBubbles server running on a Mac the user owns. The server
 * POSTs its webhook events to {@code /platforms/bluebubbles/webhook?secret=<webhook_secret>} on the API server's
 * listener (BlueBubbles does not sign webhooks, so the shared secret in the URL is what tells its calls from a
 * stranger's); Herald answers through the server's REST API ({@code /api/v1/...}, the server password as the
 * {@code password} query parameter, as BlueBubbles expects). Users are iMessage addresses: a phone number as
 * {@code +15551234567} or an Apple ID e-mail address. Bound from the configuration, validated, then only read;
 * {@link #toString()} masks the secrets.
 */
public record BlueBubblesSettings(
        @Doc("receive iMessages from a BlueBubbles server on the API server's listener (/platforms/bluebubbles/webhook) and answer through its REST API")
        boolean enabled,
        @Doc("the BlueBubbles server's URL as Herald reaches it, e.g. http://192.168.1.20:1234; attachments are fetched from this server only; required when enabled")
        String url,
        @Doc("the BlueBubbles server password, sent as the password query parameter; required when enabled")
        @EnvOverride({"BLUEBUBBLES_PASSWORD"})
        Secret password,
        @Doc("a random secret (at least 16 characters) that must be in the webhook URL set in BlueBubbles as ?secret=...; BlueBubbles does not sign webhooks; required when enabled")
        @EnvOverride({"BLUEBUBBLES_WEBHOOK_SECRET"})
        Secret webhookSecret,
        @Doc("how the server sends: apple-script (works everywhere) or private-api (needs the Private API helper; adds replies to a message, typing and read markers)")
        String sendMethod,
        @Doc("in group chats, only messages that name the bot (one of mention_names) start a turn; 1:1 chats always do")
        boolean requireMention,
        @Doc("the words that address the bot in a group chat (iMessage has no @mentions for bots), matched as whole words, any case")
        List<String> mentionNames,
        @Doc("iMessage addresses (+15551234567 or name@example.com) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who writes to the Mac's iMessage account talk to the agent")
        boolean allowAllUsers,
        @Doc("addresses that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown address's 1:1 message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String APPLE_SCRIPT = "apple-script";
    public static final String PRIVATE_API = "private-api";

    /**
     * Time values of the BlueBubbles client; not configured (tests shorten them).
     *
     * @param connectTimeout  connecting to the server
     * @param requestTimeout  one call, a file send included (AppleScript sends wait for Messages.app)
     * @param pingInterval    how often {@code GET /api/v1/ping} checks that the server answers
     * @param typingInterval  the typing indicator is renewed at most this often per chat
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration pingInterval, Duration typingInterval) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(typingInterval, "typingInterval");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(90), Duration.ofSeconds(30), Duration.ofSeconds(10));
        }
    }

    public BlueBubblesSettings {
        url = url == null ? "" : url.strip();
        password = password == null ? Secret.NONE : password;
        webhookSecret = webhookSecret == null ? Secret.NONE : webhookSecret;
        sendMethod = sendMethod == null || sendMethod.isBlank() ? APPLE_SCRIPT : sendMethod.strip().toLowerCase(Locale.ROOT);
        mentionNames = mentionNames == null ? List.of() : mentionNames.stream().filter(Objects::nonNull).map(String::strip)
                .filter(s -> !s.isEmpty()).toList();
        allowedUsers = PlatformAccess.ids(allowedUsers).stream().map(BlueBubblesSettings::userId).toList();
        admins = PlatformAccess.ids(admins).stream().map(BlueBubblesSettings::userId).toList();
    }

    public static BlueBubblesSettings defaults() {
        return new BlueBubblesSettings(false, "", Secret.NONE, Secret.NONE, APPLE_SCRIPT, true, List.of("herald"), List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one server, every other key at its default. */
    public static BlueBubblesSettings of(String url, String password, String webhookSecret) {
        BlueBubblesSettings d = defaults();
        return new BlueBubblesSettings(true, url, Secret.of(password), Secret.of(webhookSecret), d.sendMethod, d.requireMention, d.mentionNames,
                d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public BlueBubblesSettings withSendMethod(String method) {
        return new BlueBubblesSettings(enabled, url, password, webhookSecret, method, requireMention, mentionNames, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm);
    }

    public BlueBubblesSettings withRequireMention(boolean require) {
        return new BlueBubblesSettings(enabled, url, password, webhookSecret, sendMethod, require, mentionNames, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm);
    }

    public BlueBubblesSettings withMentionNames(List<String> names) {
        return new BlueBubblesSettings(enabled, url, password, webhookSecret, sendMethod, requireMention, names, allowedUsers, allowAllUsers,
                admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || !url.isEmpty(), "url", "is required when " + check.path("enabled")
                + " is true: the BlueBubbles server's URL as Herald reaches it, e.g. http://192.168.1.20:1234");
        check.require(url.isEmpty() || BaseUrl.valid(url, "http", "https"), "url", "must be an http(s) URL such as http://192.168.1.20:1234, was \""
                + url + "\"");
        check.require(!enabled || password.isSet(), "password", "is required when " + check.path("enabled")
                + " is true: the server password set in BlueBubbles, e.g. ${BLUEBUBBLES_PASSWORD}");
        check.require(!enabled || webhookSecret.isSet(), "webhook_secret", "is required when " + check.path("enabled")
                + " is true: BlueBubbles does not sign its webhooks, so without a secret in the webhook URL anyone could post messages as anyone");
        check.require(!webhookSecret.isSet() || webhookSecret.reveal().orElse("").length() >= 16, "webhook_secret",
                "must be at least 16 characters (e.g. the output of: openssl rand -hex 16)");
        check.require(sendMethod.equals(APPLE_SCRIPT) || sendMethod.equals(PRIVATE_API), "send_method",
                "must be apple-script or private-api, was \"" + sendMethod + "\"");
        check.require(!enabled || !requireMention || !mentionNames.isEmpty(), "mention_names", "must name at least one word when "
                + check.path("require_mention") + " is true, else no group message would ever be answered");
    }

    /** {@code +1 (555) 123-4567} or {@code Name@Example.com} as Herald names the user: {@code +15551234567}, {@code name@example.com}. */
    static String userId(String address) {
        if (address == null || address.equals("*")) {
            return address;
        }
        String s = address.strip();
        if (s.contains("@")) {
            return s.toLowerCase(Locale.ROOT);
        }
        String digits = s.replaceAll("[\\s().-]", "");
        return digits.isEmpty() ? s : digits;
    }

    boolean privateApi() {
        return sendMethod.equals(PRIVATE_API);
    }

    URI baseUri() {
        return BaseUrl.of(url);
    }

    String passwordValue() {
        return password.reveal().orElseThrow(() -> new IllegalArgumentException("bluebubbles - no password; set platforms.bluebubbles.password"));
    }

    String webhookSecretValue() {
        return webhookSecret.reveal().orElseThrow(() -> new IllegalArgumentException(
                "bluebubbles - no webhook_secret; set platforms.bluebubbles.webhook_secret"));
    }

    @Override
    public String toString() {
        return "bluebubbles{url=" + url + ", password=****, webhook_secret=****, send_method=" + sendMethod + ", require_mention="
                + requireMention + ", mention_names=" + mentionNames + "}";
    }
}
