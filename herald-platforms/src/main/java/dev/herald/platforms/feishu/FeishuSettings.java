package dev.herald.platforms.feishu;

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
 * {@code platforms.feishu:} a Feishu (飞书) or Lark custom app with the bot capability. Events ({@code im.message.receive_v1})
 * and card presses ({@code card.action.trigger}) arrive in one of two modes: {@code websocket} (the default: Herald opens
 * the open platform's long connection itself, no public address or API server needed) or {@code webhook} (the platform
 * POSTs them to Herald's request URL, {@code /platforms/feishu/events} on the API server's listener). Herald answers
 * through the IM API with a tenant access token. Users are open_ids ({@code ou_...}). {@link #toString()} masks the
 * three secrets.
 */
public record FeishuSettings(
        @Doc("connect the Feishu/Lark app bot: receive its events (see mode) and answer through the open platform's IM API")
        boolean enabled,
        @Doc("websocket: Herald opens the open platform's long connection (no public address needed); webhook: the platform POSTs events to /platforms/feishu/events on the API server's listener")
        String mode,
        @Doc("the app's App ID (Credentials & Basic Info), e.g. cli_a1b2c3d4e5f6; required when enabled")
        String appId,
        @Doc("the app's App Secret, for tenant access tokens; required when enabled")
        @EnvOverride({"FEISHU_APP_SECRET"})
        Secret appSecret,
        @Doc("the Verification Token of Events & Callbacks > Encryption Strategy; every webhook event must carry it; required in webhook mode")
        @EnvOverride({"FEISHU_VERIFICATION_TOKEN"})
        Secret verificationToken,
        @Doc("the Encrypt Key of the same page: webhook events arrive encrypted and signed (X-Lark-Signature) with it; strongly recommended in webhook mode")
        @EnvOverride({"FEISHU_ENCRYPT_KEY"})
        Secret encryptKey,
        @Doc("feishu (open.feishu.cn, China) or lark (open.larksuite.com, international)")
        String domain,
        @Doc("the open platform's root instead of the domain's; only for a proxy or tests")
        String baseUrl,
        @Doc("in a group, answer only messages that @mention the bot")
        boolean requireMention,
        @Doc("send replies as rich text (post) rendered from Markdown; false = plain text")
        boolean markdown,
        @Doc("open_ids (ou_...) allowed to talk to the agent; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let everyone who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("open_ids that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String FEISHU_BASE = "https://open.feishu.cn";
    public static final String LARK_BASE = "https://open.larksuite.com";
    public static final String WEBSOCKET = "websocket";
    public static final String WEBHOOK = "webhook";
    private static final Pattern APP_ID = Pattern.compile("cli_[A-Za-z0-9]{1,64}");
    private static final Pattern OPEN_ID = Pattern.compile("ou_[A-Za-z0-9_-]{1,64}");

    /**
     * Time values of the callback and the API client; not configured (tests shorten them).
     *
     * @param connectTimeout  connecting to the open platform
     * @param requestTimeout  one API call, an upload included
     * @param timestampWindow how far a signed event's {@code X-Lark-Request-Timestamp} may be from Herald's clock
     * @param busyWait        how long a send waits after a rate limit (code 99991400, HTTP 429)
     * @param botLookup       how long after a failed lookup of the bot's open_id it is asked again
     * @param reconnectInitial first wait before the long connection is opened again (growing, jittered)
     * @param reconnectMax    longest wait between two attempts to open the long connection
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration timestampWindow, Duration busyWait, Duration botLookup,
            Duration reconnectInitial, Duration reconnectMax) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(timestampWindow, "timestampWindow");
            Objects.requireNonNull(busyWait, "busyWait");
            Objects.requireNonNull(botLookup, "botLookup");
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofSeconds(2), Duration.ofMinutes(1),
                    Duration.ofSeconds(1), Duration.ofMinutes(1));
        }
    }

    public FeishuSettings {
        mode = mode == null || mode.isBlank() ? WEBSOCKET : mode.strip().toLowerCase(java.util.Locale.ROOT);
        appId = appId == null ? "" : appId.strip();
        appSecret = appSecret == null ? Secret.NONE : appSecret;
        verificationToken = verificationToken == null ? Secret.NONE : verificationToken;
        encryptKey = encryptKey == null ? Secret.NONE : encryptKey;
        domain = domain == null || domain.isBlank() ? "feishu" : domain.strip().toLowerCase(java.util.Locale.ROOT);
        baseUrl = baseUrl == null ? "" : baseUrl.strip();
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static FeishuSettings defaults() {
        return new FeishuSettings(false, WEBSOCKET, "", Secret.NONE, Secret.NONE, Secret.NONE, "feishu", "", true, true, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one app in webhook mode against {@code baseUrl}, every other key at its default. */
    public static FeishuSettings of(String baseUrl, String appId, String appSecret, String verificationToken, String encryptKey) {
        FeishuSettings d = defaults();
        return new FeishuSettings(true, WEBHOOK, appId, Secret.of(appSecret), Secret.of(verificationToken),
                encryptKey == null ? Secret.NONE : Secret.of(encryptKey), d.domain, baseUrl, d.requireMention, d.markdown, d.allowedUsers,
                d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public FeishuSettings withMarkdown(boolean on) {
        return new FeishuSettings(enabled, mode, appId, appSecret, verificationToken, encryptKey, domain, baseUrl, requireMention, on, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public FeishuSettings withRequireMention(boolean on) {
        return new FeishuSettings(enabled, mode, appId, appSecret, verificationToken, encryptKey, domain, baseUrl, on, markdown, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    /** These settings in {@code newMode} (websocket or webhook). */
    public FeishuSettings withMode(String newMode) {
        return new FeishuSettings(enabled, newMode, appId, appSecret, verificationToken, encryptKey, domain, baseUrl, requireMention, markdown,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    boolean websocket() {
        return mode.equals(WEBSOCKET);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        String when = "is required when " + check.path("enabled") + " is true";
        check.require(!enabled || APP_ID.matcher(appId).matches(), "app_id", when + ": the App ID (cli_...), was \"" + appId + "\"");
        check.require(appId.isEmpty() || APP_ID.matcher(appId).matches(), "app_id", "must look like cli_a1b2c3d4e5f6, was \"" + appId + "\"");
        check.require(!enabled || appSecret.isSet(), "app_secret", when + ": the App Secret, e.g. ${FEISHU_APP_SECRET}");
        check.require(mode.equals(WEBSOCKET) || mode.equals(WEBHOOK), "mode", "must be websocket or webhook, was \"" + mode + "\"");
        check.require(!enabled || !mode.equals(WEBHOOK) || verificationToken.isSet(), "verification_token", "is required when "
                + check.path("mode") + " is webhook: without it Herald cannot tell the open platform's events from forged ones");
        check.require(domain.equals("feishu") || domain.equals("lark"), "domain", "must be feishu or lark, was \"" + domain + "\"");
        check.require(baseUrl.isEmpty() || BaseUrl.valid(baseUrl, "http", "https"), "base_url", "must be an http(s) URL such as "
                + FEISHU_BASE + ", was \"" + baseUrl + "\"");
        for (String id : allowedUsers) {
            check.require(id == null || id.equals("*") || OPEN_ID.matcher(id).matches(), "allowed_users",
                    "must be open_ids (ou_...), was \"" + id + "\"");
        }
    }

    /** The open platform's root: base_url when set, else the domain's. */
    URI apiUri() {
        return BaseUrl.of(!baseUrl.isEmpty() ? baseUrl : domain.equals("lark") ? LARK_BASE : FEISHU_BASE);
    }

    String appSecretValue() {
        return appSecret.reveal().orElseThrow(() -> new IllegalArgumentException("feishu - no app_secret; set platforms.feishu.app_secret"));
    }

    String verificationTokenValue() {
        return verificationToken.reveal().orElseThrow(() -> new IllegalArgumentException(
                "feishu - no verification_token; set platforms.feishu.verification_token (required in webhook mode)"));
    }

    /** The encrypt key, or null when events come in plain JSON. */
    String encryptKeyValue() {
        return encryptKey.reveal().filter(k -> !k.isEmpty()).orElse(null);
    }

    @Override
    public String toString() {
        return "feishu{mode=" + mode + ", app_id=" + appId + ", app_secret=****, verification_token=****, encrypt_key=" + (encryptKey.isSet() ? "****" : "none")
                + ", domain=" + domain + ", base_url=" + baseUrl + ", require_mention=" + requireMention + ", markdown=" + markdown + "}";
    }
}
