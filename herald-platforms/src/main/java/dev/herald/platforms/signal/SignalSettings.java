package dev.herald.platforms.signal;

import dev.herald.core.Loopback;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * {@code platforms.signal:} Signal through a signal-cli daemon started with {@code --http} (JSON-RPC 2.0 at
 * {@code /api/v1/rpc}, received messages as server-sent events at {@code /api/v1/events}). signal-cli holds the Signal
 * account and its keys; Herald holds no credential (the daemon's HTTP endpoint has no authentication, hence loopback or
 * https only). Bound from the configuration, validated, then only read; the adapter's time values, which are not
 * configured, are its {@link Timing}.
 */
public record SignalSettings(
        @Doc("connect to Signal through a signal-cli daemon (signal-cli -a +NUMBER daemon --http 127.0.0.1:8080)")
        boolean enabled,
        @Doc("the daemon's HTTP base, e.g. http://127.0.0.1:8080; http only to a loopback host, https anywhere")
        String url,
        @Doc("the bot's Signal number in international form (+E.164), as registered or linked in signal-cli; required when enabled")
        String account,
        @Doc("in groups, only messages that @mention the bot start a turn (direct messages always do)")
        boolean requireMention,
        @Doc("senders allowed to talk to the agent: ACI UUIDs (always matched) or +E.164 numbers (matched only when the sender "
                + "shares their number); \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who can message the bot's number talk to the agent")
        boolean allowAllUsers,
        @Doc("UUIDs or numbers that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown sender's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** Where {@code signal-cli daemon --http} listens by default. */
    public static final String DEFAULT_URL = "http://127.0.0.1:8080";

    private static final Pattern NUMBER = Pattern.compile("\\+[1-9][0-9]{6,14}");
    private static final Pattern UUID = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /**
     * How the adapter paces itself; not configured (tests shorten it).
     *
     * @param reconnectInitial first delay after the event stream failed; grows to {@code reconnectMax} with jitter
     * @param reconnectMax     longest delay between reconnection attempts
     * @param connectTimeout   TCP connect timeout to the daemon
     * @param idleTimeout      the event stream is given up and opened again when nothing (not even signal-cli's
     *                         keep-alive comment) arrived for this long
     * @param requestTimeout   one JSON-RPC call's timeout (a send to a large group takes signal-cli a while)
     * @param firstConnectWait how long {@code start} waits for the first connection attempt to end
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration idleTimeout,
            Duration requestTimeout, Duration firstConnectWait) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(firstConnectWait, "firstConnectWait");
        }

        /** Reconnect from 1 s to 60 s, 5 s to connect, 2 min of silence before reopening, 60 s per call, 10 s for start. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(5), Duration.ofMinutes(2),
                    Duration.ofSeconds(60), Duration.ofSeconds(10));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public SignalSettings {
        url = url == null ? DEFAULT_URL : url;
        account = account == null ? "" : account.strip();
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
        homeChannel = homeChannel == null ? HomeChannelConfig.defaults() : homeChannel;
        unauthorizedDm = unauthorizedDm == null ? UnauthorizedDm.PAIR : unauthorizedDm;
    }

    public static SignalSettings defaults() {
        return new SignalSettings(false, DEFAULT_URL, "", true, List.of(), false, List.of(), HomeChannelConfig.defaults(),
                UnauthorizedDm.PAIR);
    }

    /** Enabled settings for the daemon at {@code url} serving {@code account}, every other key at its default. */
    public static SignalSettings of(String url, String account) {
        SignalSettings d = defaults();
        return new SignalSettings(true, url, account, d.requireMention, d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel,
                d.unauthorizedDm);
    }

    public SignalSettings withAllowedUsers(List<String> users) {
        return new SignalSettings(enabled, url, account, requireMention, users, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public SignalSettings withRequireMention(boolean required) {
        return new SignalSettings(enabled, url, account, required, allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(BaseUrl.valid(url, "http", "https"), "url", "must be an http(s) URL such as " + DEFAULT_URL + ", was \"" + url + "\"");
        URI u = BaseUrl.of(url);
        check.require(u.getScheme().toLowerCase(Locale.ROOT).equals("https") || Loopback.isHost(u.getHost()), "url",
                "may use http only to a loopback host (127.0.0.1, ::1, localhost): signal-cli's HTTP endpoint has no authentication "
                        + "and carries every message; use https through a proxy for another host, was \"" + url + "\"");
        check.require(!enabled || NUMBER.matcher(account).matches(), "account", "must be the bot's number in international form "
                + "(+ and 7-15 digits, e.g. +15551234567) as registered or linked in signal-cli, was \"" + account + "\"");
        for (String id : allowedUsers) {
            check.require(id == null || isUserId(id.strip()) || id.strip().equals("*"), "allowed_users",
                    "entries must be ACI UUIDs or +E.164 numbers (or \"*\"), was \"" + id + "\"");
        }
        for (String id : admins) {
            check.require(id == null || isUserId(id.strip()), "admins", "entries must be ACI UUIDs or +E.164 numbers, was \"" + id + "\"");
        }
    }

    /** The access rules, with UUIDs in lower case as signal-cli writes them (so a UUID copied in capitals still matches). */
    @Override
    public dev.herald.core.auth.AccessPolicy toAccessPolicy() {
        dev.herald.core.auth.AccessPolicy p = PlatformAccess.super.toAccessPolicy();
        return new dev.herald.core.auth.AccessPolicy(p.allowAllUsers(), lower(p.allowedUsers()), lower(p.admins()));
    }

    /** The numbers among the allowed users and admins: a sender showing one of them is known by it rather than by its UUID. */
    java.util.Set<String> numbersListed() {
        java.util.Set<String> out = new java.util.HashSet<>();
        java.util.stream.Stream.concat(allowedUsers.stream(), admins.stream()).filter(java.util.Objects::nonNull).map(String::strip)
                .filter(SignalSettings::isNumber).forEach(out::add);
        return out;
    }

    private static java.util.Set<String> lower(java.util.Set<String> ids) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String id : ids) {
            out.add(isUuid(id) ? id.toLowerCase(Locale.ROOT) : id);
        }
        return out;
    }

    /** True for an ACI UUID or a +E.164 number. */
    static boolean isUserId(String id) {
        return isNumber(id) || isUuid(id);
    }

    static boolean isNumber(String id) {
        return id != null && NUMBER.matcher(id).matches();
    }

    static boolean isUuid(String id) {
        return id != null && UUID.matcher(id).matches();
    }

    /** The daemon's base URL without a trailing slash. */
    URI baseUri() {
        return BaseUrl.of(url);
    }

    @Override
    public String toString() {
        return "signal{url=" + url + ", account=" + account + ", require_mention=" + requireMention + "}";
    }
}
