package dev.herald.web.api;

import dev.herald.core.Loopback;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.web.WebServer;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * {@code platforms.api_server:} the OpenAI-compatible HTTP API that other programs use to talk to the agent.
 * Bound to loopback it may run without a key; on any other address a bearer key is required. The configuration loader
 * binds the section straight into this record; {@link #settings(long)} is the server's {@link ApiServerPlatform.Settings},
 * whose defaults {@link #defaults()} reads.
 */
public record ApiServerConfig(
        @Doc("serve the OpenAI-compatible API")
        boolean enabled,
        @Doc("address to bind; a non-loopback address (e.g. 0.0.0.0) also needs key")
        String host,
        @Doc("TCP port, 1..65535")
        int port,
        @Doc("bearer key clients must send (Authorization: Bearer KEY); required when host is not loopback")
        Secret key,
        @Doc("largest request body accepted, in bytes")
        long maxBodyBytes,
        @Doc("seconds one request may take, streaming included")
        int requestTimeoutSeconds,
        @Doc("let every caller with the key talk to the agent; false = only allowed_users, named by the X-Herald-User header")
        boolean allowAllUsers,
        @Doc("user names (X-Herald-User header, default \"api\") allowed when allow_all_users is false")
        java.util.List<String> allowedUsers,
        @Doc("seconds a client may take to send a request's line and headers before the connection is closed (slow clients)")
        int headerTimeoutSeconds,
        @Doc("open connections one client address (an IPv6 /64) may hold; more are closed at once. Behind a reverse proxy every "
                + "client shares the proxy's address: raise it to the proxy's connection count")
        int maxConnectionsPerAddress) implements Validated {

    /** The shortest key accepted on a host other machines can reach. */
    public static final int MIN_PUBLIC_KEY_LENGTH = 16;

    private static final Pattern HOST_CHARS = Pattern.compile("[A-Za-z0-9.:\\[\\]%_-]+");

    public ApiServerConfig {
        key = key == null ? Secret.NONE : key;
        host = host == null ? null : host.strip();
        allowedUsers = allowedUsers == null ? java.util.List.of() : java.util.List.copyOf(allowedUsers);
    }

    public static ApiServerConfig defaults() {
        ApiServerPlatform.Settings api = ApiServerPlatform.Settings.defaults();
        return new ApiServerConfig(true, api.host(), api.port(), Secret.NONE, api.maxBodyBytes(), (int) api.requestTimeout().toSeconds(), true,
                java.util.List.of(), (int) WebServer.Settings.DEFAULT_HEADER_TIMEOUT.toSeconds(),
                WebServer.Settings.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
    }

    /** The API server's settings: this section's address, key and limits, taking images up to {@code maxImageBytes}. */
    public ApiServerPlatform.Settings settings(long maxImageBytes) {
        return new ApiServerPlatform.Settings(host, port, key.reveal().orElse(null), maxBodyBytes, requestTimeout(), "herald")
                .withMaxImageBytes(maxImageBytes);
    }

    public Duration headerTimeout() {
        return Duration.ofSeconds(headerTimeoutSeconds);
    }

    /** Who may talk to the agent through the API: everyone with the key, or only the listed users. */
    public dev.herald.core.auth.AccessPolicy accessPolicy() {
        return allowAllUsers ? dev.herald.core.auth.AccessPolicy.allowAll()
                : dev.herald.core.auth.AccessPolicy.users(java.util.Set.copyOf(allowedUsers));
    }

    public Duration requestTimeout() {
        return Duration.ofSeconds(requestTimeoutSeconds);
    }

    /** True when {@link #host} is a loopback address (127.0.0.0/8, ::1, localhost): only this machine can connect. */
    public boolean loopbackOnly() {
        return isLoopback(host);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(host != null && HOST_CHARS.matcher(host).matches(), "host",
                "must be a host name or IP address such as 127.0.0.1 or 0.0.0.0, was \"" + host + "\"");
        check.require(port >= 1 && port <= 65535, "port", "must be 1..65535, was " + port);
        check.require(maxBodyBytes >= 1, "max_body_bytes", "must be at least 1, was " + maxBodyBytes);
        check.require(requestTimeoutSeconds >= 1, "request_timeout_seconds", "must be at least 1, was " + requestTimeoutSeconds);
        check.require(headerTimeoutSeconds >= 1, "header_timeout_seconds", "must be at least 1, was " + headerTimeoutSeconds);
        check.require(maxConnectionsPerAddress >= 1, "max_connections_per_address", "must be at least 1, was " + maxConnectionsPerAddress);
        check.require(!enabled || key.isSet() || isLoopback(host), "key",
                "is required when host is " + host + " (not a loopback address), or anyone who can reach port " + port
                        + " talks to the agent; set " + check.path("key") + " (e.g. key: ${HERALD_API_KEY}) or bind "
                        + check.path("host") + " to 127.0.0.1");
        check.require(!enabled || isLoopback(host) || key.reveal().map(String::length).orElse(MIN_PUBLIC_KEY_LENGTH) >= MIN_PUBLIC_KEY_LENGTH,
                "key", "is shorter than " + MIN_PUBLIC_KEY_LENGTH + " characters while host is " + host + " (not a loopback address), "
                        + "so it can be guessed; use a long random key (e.g. openssl rand -hex 24) or bind " + check.path("host")
                        + " to 127.0.0.1");
    }

    /** True when {@code host} is a loopback address or {@code localhost}, decided without DNS ({@link Loopback#isHost}). */
    public static boolean isLoopback(String host) {
        return Loopback.isHost(host);
    }
}
