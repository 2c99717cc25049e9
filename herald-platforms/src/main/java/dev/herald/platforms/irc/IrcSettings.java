package dev.herald.platforms.irc;

import dev.herald.core.Loopback;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * {@code platforms.irc:} one connection to an IRC server as a bot with a nick, in the configured channels and in direct
 * messages. Who may talk to the agent is set by the shared access keys; on IRC these are accounts when the server
 * reports them (IRCv3 {@code account-tag}, {@code extended-join}, {@code account-notify}), and nicks otherwise, which
 * anyone can take (see docs/platforms/irc.md). Entries of {@code allowed_users} and {@code admins} are compared without
 * regard to ASCII case, as IRC compares nicks. Bound from the configuration, validated, then only read; the time values
 * are the adapter's {@link Timing}. {@link #toString()} masks both passwords.
 */
public record IrcSettings(
        @Doc("connect to an IRC server as a bot")
        boolean enabled,
        @Doc("the server's host name or address; required when enabled")
        String host,
        @Doc("the server's port (6697 is IRC over TLS; plain IRC is usually 6667)")
        int port,
        @Doc("connect over TLS, checking the server's certificate and host name; false is allowed only to a loopback host")
        boolean tls,
        @Doc("the bot's nick; when it is taken (433) a _ is appended, and the nick is asked for again while the bot runs")
        String nick,
        @Doc("server password (PASS), for servers that ask for one")
        Secret password,
        Sasl sasl,
        @Doc("channels to join, e.g. [\"#herald\"], or a map from each channel to its own settings (model, personality, tools, busy_input, require_mention), e.g. {\"#herald\": {require_mention: false}}; a home channel that is a channel is joined too")
        List<String> channels,
        @Doc("in channels, only messages addressed to the bot as 'nick: ...' or 'nick, ...' start a turn (direct messages always do)")
        boolean requireMention,
        @Doc("accounts (when the server reports them) or nicks allowed to talk to the agent, any case; \"*\" = everyone")
        List<String> allowedUsers,
        @Doc("let anyone who can message the bot talk to the agent")
        boolean allowAllUsers,
        @Doc("accounts or nicks that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's direct message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** IRC over TLS. */
    public static final int DEFAULT_PORT = 6697;
    public static final String DEFAULT_NICK = "herald";
    /** RFC 2812's nick: a letter or special first, then letters, digits, specials and '-'; 30 is the longest servers allow. */
    private static final Pattern NICK = Pattern.compile("[A-Za-z\\[\\]\\\\`_^{|}][A-Za-z0-9\\[\\]\\\\`_^{|}-]{0,29}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:\\[\\]_-]{1,253}");

    /**
     * {@code platforms.irc.sasl:} log in to the server's services with SASL PLAIN during registration (IRCv3 CAP), so
     * the bot holds its account from the first line; set both keys or neither.
     */
    public record Sasl(
            @Doc("the services account to log in as with SASL PLAIN; not set = no SASL")
            String username,
            @Doc("the account's password; required with username")
            Secret password) implements Validated {

        public Sasl {
            password = password == null ? Secret.NONE : password;
            username = username == null || username.isBlank() ? null : username.strip();
        }

        public static Sasl defaults() {
            return new Sasl(null, Secret.NONE);
        }

        /** True when SASL is configured (both keys set). */
        public boolean configured() {
            return username != null && password.isSet();
        }

        @Override
        public void validate(ConfigChecks check) {
            check.require(username == null || password.isSet(), "password", "is required when " + check.path("username") + " is set");
            check.require(username != null || !password.isSet(), "username", "is required when " + check.path("password") + " is set");
            check.require(username == null || username.chars().noneMatch(c -> c < 0x20 || c == ' '), "username",
                    "must not contain spaces or control characters");
        }

        @Override
        public String toString() {
            return username == null ? "none" : "PLAIN as " + username;
        }
    }

    /**
     * Time values of the connection and its sends; not configured (tests shorten them).
     *
     * @param connectTimeout      TCP connect and TLS handshake
     * @param registrationTimeout from connecting to the server's welcome (001), SASL included
     * @param joinWait            how long the first connection waits for its channels to be joined before it counts as connected
     * @param idlePing            a connection quiet this long gets a PING from Herald (and the configured nick is asked for again)
     * @param pongTimeout         a connection that answers nothing this long after that PING is dropped and replaced
     * @param reconnectInitial    first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax        longest reconnection delay
     * @param burst               lines that may go out at once before the pace applies (flood control)
     * @param pace                the steady interval between lines after a burst
     * @param sendConfirm         how long a send waits for the server to confirm it read the lines (a PONG after them)
     */
    public record Timing(Duration connectTimeout, Duration registrationTimeout, Duration joinWait, Duration idlePing, Duration pongTimeout,
            Duration reconnectInitial, Duration reconnectMax, int burst, Duration pace, Duration sendConfirm) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(registrationTimeout, "registrationTimeout");
            Objects.requireNonNull(joinWait, "joinWait");
            Objects.requireNonNull(idlePing, "idlePing");
            Objects.requireNonNull(pongTimeout, "pongTimeout");
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(pace, "pace");
            Objects.requireNonNull(sendConfirm, "sendConfirm");
            if (burst < 1) {
                throw new IllegalArgumentException("burst must be at least 1, was " + burst);
            }
        }

        /** Connect in 10 s, register in 30 s, PING after 90 s of quiet, 4 lines at once then one a second, reconnect 1 s to 1 min. */
        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(90),
                    Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(1), 4, Duration.ofSeconds(1), Duration.ofSeconds(20));
        }

        /** These values with the flood control's {@code burst} and {@code pace}. */
        public Timing withPace(int burst, Duration pace) {
            return new Timing(connectTimeout, registrationTimeout, joinWait, idlePing, pongTimeout, reconnectInitial, reconnectMax, burst, pace,
                    sendConfirm);
        }

        /** These values reconnecting from {@code initial} to {@code max}. */
        public Timing withReconnect(Duration initial, Duration max) {
            return new Timing(connectTimeout, registrationTimeout, joinWait, idlePing, pongTimeout, initial, max, burst, pace, sendConfirm);
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public IrcSettings {
        host = host == null ? "" : host.strip();
        nick = nick == null ? "" : nick.strip();
        password = password == null ? Secret.NONE : password;
        sasl = sasl == null ? Sasl.defaults() : sasl;
        channels = channels == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(channels));
        allowedUsers = folded(PlatformAccess.ids(allowedUsers));
        admins = folded(PlatformAccess.ids(admins));
    }

    public static IrcSettings defaults() {
        return new IrcSettings(false, "", DEFAULT_PORT, true, DEFAULT_NICK, Secret.NONE, Sasl.defaults(), List.of(), true, List.of(), false,
                List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for a plain connection to {@code host:port} as {@code nick} in {@code channels} (tests, loopback). */
    public static IrcSettings plain(String host, int port, String nick, List<String> channels) {
        IrcSettings d = defaults();
        return new IrcSettings(true, host, port, false, nick, d.password, d.sasl, channels, d.requireMention, d.allowedUsers, d.allowAllUsers,
                d.admins, d.homeChannel, d.unauthorizedDm);
    }

    public IrcSettings withPassword(String serverPassword, Sasl login) {
        return new IrcSettings(enabled, host, port, tls, nick, Secret.of(serverPassword), login, channels, requireMention, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public IrcSettings withRequireMention(boolean required) {
        return new IrcSettings(enabled, host, port, tls, nick, password, sasl, channels, required, allowedUsers, allowAllUsers, admins,
                homeChannel, unauthorizedDm);
    }

    public IrcSettings withHomeChannel(HomeChannelConfig home) {
        return new IrcSettings(enabled, host, port, tls, nick, password, sasl, channels, requireMention, allowedUsers, allowAllUsers, admins,
                home, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || HOST.matcher(host).matches(), "host", "is required when " + check.path("enabled")
                + " is true: the IRC server's host name, such as irc.libera.chat, was \"" + host + "\"");
        check.require(port >= 1 && port <= 65535, "port", "must be 1..65535, was " + port);
        check.require(tls || !enabled || Loopback.isHost(host), "tls", "may be false only for a loopback host (127.0.0.1, ::1, localhost): "
                + "without TLS the passwords and every message cross the network in clear; " + check.path("host") + " is \"" + host + "\"");
        check.require(NICK.matcher(nick).matches(), "nick", "must be 1-30 letters, digits or []\\`_^{|}- starting with a letter or one of "
                + "[]\\`_^{|}, was \"" + nick + "\"");
        for (String c : channels) {
            check.require(IrcIds.isChannelName(c), "channels", "must be channel names such as \"#herald\" (starting with #, &, + or !, "
                    + "at most 50 characters, no spaces, commas or control characters), was \"" + c + "\"");
        }
        check.require(password.reveal().map(p -> p.chars().noneMatch(c -> c < 0x20)).orElse(true), "password",
                "must not contain line breaks or control characters");
    }

    /** The channels to join: the configured ones, then the home channel when it is a channel; each once, in that order. */
    List<String> channelsToJoin() {
        List<String> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        List<String> all = new ArrayList<>(channels);
        if (homeChannel.present() && IrcIds.isChannelName(IrcIds.wire(homeChannel.chatId().strip()))) {
            all.add(IrcIds.wire(homeChannel.chatId().strip()));
        }
        for (String c : all) {
            String id = IrcIds.fold(c);
            if (!seen.contains(id)) {
                seen.add(id);
                out.add(c);
            }
        }
        return out;
    }

    /** The server password, for the one line that sends it (PASS). */
    String passwordValue() {
        return password.reveal().orElse(null);
    }

    private static List<String> folded(List<String> ids) {
        List<String> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(id == null || id.equals("*") ? id : IrcIds.fold(id.strip()));
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public String toString() {
        return "irc{host=" + host + ", port=" + port + ", tls=" + tls + ", nick=" + nick + ", password=" + password + ", sasl=" + sasl
                + ", channels=" + channels + ", require_mention=" + requireMention + "}";
    }
}
