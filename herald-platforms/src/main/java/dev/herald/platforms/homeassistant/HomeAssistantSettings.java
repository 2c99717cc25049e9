package dev.herald.platforms.homeassistant;

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
import java.util.Objects;

/**
 * {@code platforms.homeassistant:} a Home Assistant instance Herald connects to over its WebSocket API with a long-lived
 * access token. It gives the agent two tools ({@code ha_states}, {@code ha_call_service}); a service call runs at once
 * only when its domain is in {@code allow_domains}, otherwise it asks for an approval. Home Assistant's own
 * conversation pipeline reaches Herald through the API server, not through this section. {@link #toString()} masks
 * the token.
 */
public record HomeAssistantSettings(
        @Doc("connect to Home Assistant and give the agent the ha_states and ha_call_service tools")
        boolean enabled,
        @Doc("Home Assistant's address, e.g. http://homeassistant.local:8123 (the WebSocket is <url>/api/websocket)")
        String url,
        @Doc("a long-lived access token (your Home Assistant profile, Security tab); required when enabled")
        @EnvOverride({"HOMEASSISTANT_TOKEN", "HASS_TOKEN"})
        Secret token,
        @Doc("service domains ha_call_service may call without asking (default: light); every other call waits for an approval")
        List<String> allowDomains,
        @Doc("the most entities one ha_states answer lists")
        int maxStates,
        @Doc("unused: Home Assistant sends no chat messages to this section (its assistant talks to the API server)")
        List<String> allowedUsers,
        @Doc("unused: Home Assistant sends no chat messages to this section")
        boolean allowAllUsers,
        @Doc("unused: Home Assistant sends no chat messages to this section")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("unused: there are no unknown senders")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String DEFAULT_URL = "http://homeassistant.local:8123";
    public static final List<String> DEFAULT_ALLOW_DOMAINS = List.of("light");
    public static final int DEFAULT_MAX_STATES = 200;

    /**
     * Time values of the connection; not configured (tests shorten them).
     *
     * @param connectTimeout   opening the WebSocket and the authentication phase
     * @param requestTimeout   one command's answer
     * @param reconnectInitial the first wait after the connection dropped
     * @param reconnectMax     the longest wait between two attempts
     * @param pingInterval     silence after which Herald sends a ping; twice this without an answer drops the connection
     * @param firstConnectWait how long {@code start} waits for the first attempt to end
     */
    public record Timing(Duration connectTimeout, Duration requestTimeout, Duration reconnectInitial, Duration reconnectMax,
            Duration pingInterval, Duration firstConnectWait) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(firstConnectWait, "firstConnectWait");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(1), Duration.ofMinutes(1),
                    Duration.ofSeconds(30), Duration.ofSeconds(10));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public HomeAssistantSettings {
        url = url == null || url.isBlank() ? DEFAULT_URL : url.strip().replaceAll("/+$", "");
        token = token == null ? Secret.NONE : token;
        allowDomains = allowDomains == null ? DEFAULT_ALLOW_DOMAINS : allowDomains.stream().map(d -> d == null ? "" : d.strip()).toList();
        maxStates = maxStates == 0 ? DEFAULT_MAX_STATES : maxStates;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
        homeChannel = homeChannel == null ? HomeChannelConfig.defaults() : homeChannel;
        unauthorizedDm = unauthorizedDm == null ? UnauthorizedDm.IGNORE : unauthorizedDm;
    }

    public static HomeAssistantSettings defaults() {
        return new HomeAssistantSettings(false, DEFAULT_URL, Secret.NONE, DEFAULT_ALLOW_DOMAINS, DEFAULT_MAX_STATES, List.of(), false, List.of(),
                HomeChannelConfig.defaults(), UnauthorizedDm.IGNORE);
    }

    /** Enabled settings for {@code url} with {@code token}, every other key at its default. */
    public static HomeAssistantSettings of(String url, String token) {
        return defaults().with(url, token);
    }

    HomeAssistantSettings with(String newUrl, String newToken) {
        return new HomeAssistantSettings(true, newUrl, newToken == null ? Secret.NONE : Secret.of(newToken), allowDomains, maxStates,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public HomeAssistantSettings withAllowDomains(List<String> domains) {
        return new HomeAssistantSettings(enabled, url, token, domains, maxStates, allowedUsers, allowAllUsers, admins, homeChannel,
                unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(url, "http", "https"), "url", "must be an http(s) URL such as " + DEFAULT_URL + ", was \"" + url + "\"");
        check.require(!enabled || token.isSet(), "token", "is required when " + check.path("enabled")
                + " is true: create a long-lived access token in your Home Assistant profile (Security tab)");
        for (int i = 0; i < allowDomains.size(); i++) {
            String d = allowDomains.get(i);
            check.require(HomeAssistantIds.validDomain(d), "allow_domains[" + i + "]", "must be a service domain such as light"
                    + " (lower-case letters, digits and _), was \"" + d + "\"");
        }
        check.require(maxStates >= 1 && maxStates <= 5_000, "max_states", "must be 1 to 5000, was " + maxStates);
        check.require(allowedUsers.isEmpty(), "allowed_users", "must stay empty: Home Assistant sends no chat messages here; its assistant"
                + " talks to Herald through platforms.api_server");
    }

    /** The WebSocket API's address: {@code ws(s)://<host>/api/websocket}. */
    URI websocketUri() {
        URI base = BaseUrl.of(url);
        String scheme = "https".equals(base.getScheme()) ? "wss" : "ws";
        return URI.create(scheme + base.toString().substring(base.getScheme().length()) + "/api/websocket");
    }

    @Override
    public String toString() {
        return "homeassistant{url=" + url + (token.isSet() ? ", token=****" : "") + ", allow_domains=" + allowDomains
                + ", max_states=" + maxStates + "}";
    }
}
