package dev.herald.platforms.xmpp;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code platforms.xmpp:} an XMPP (Jabber) account the agent speaks as: one-to-one chats and multi-user chat rooms
 * (XEP-0045). Who may talk to the agent is set by the shared access keys, with bare JIDs as user ids. Bound from the
 * configuration, validated, then only read; the adapter's time values, which are not configured, are its
 * {@link Timing}. {@link #toString()} masks the password.
 */
public record XmppSettings(
        @Doc("connect to an XMPP server as the account jid")
        boolean enabled,
        @Doc("the bot's account, a bare JID such as herald@example.org (a resource, if given, is replaced by herald); required when enabled")
        String jid,
        @Doc("the account's password; required when enabled")
        @EnvOverride({"XMPP_PASSWORD"})
        Secret password,
        @Doc("server host to connect to; not set = the JID's domain (no DNS SRV lookup)")
        String host,
        @Doc("client-to-server port")
        int port,
        @Doc("starttls: upgrade the plain connection before the login (required); tls: TLS from the first byte (usually port 5223); none: plain, only to a loopback host")
        Security security,
        @Doc("multi-user chat rooms to join, as bare room JIDs such as lobby@conference.example.org")
        List<String> rooms,
        @Doc("the bot's nick in the rooms; not set = the JID's local part")
        String roomNick,
        @Doc("in rooms, only messages that mention the room nick start a turn (one-to-one chats always do)")
        boolean requireMention,
        @Doc("longest message the bot sends, in characters of styled text; longer answers are split")
        int maxMessageLength,
        @Doc("bare JIDs (alice@example.org) allowed to talk to the agent; \"*\" = everyone. In rooms the sender's real JID must be visible to the bot")
        List<String> allowedUsers,
        @Doc("let anyone who can message the bot, or mention it in a joined room, talk to the agent")
        boolean allowAllUsers,
        @Doc("bare JIDs that may also use /restart and /sethome")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("what an unknown user's one-to-one message gets: a pairing code, or nothing")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    /** The client-to-server port. */
    public static final int DEFAULT_PORT = 5222;
    /** A conservative message length: XMPP has no limit of its own, servers cap whole stanzas (often at 256 KiB). */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 4000;
    /** The resource Herald binds. */
    static final String RESOURCE = "herald";

    /** How the connection is protected. */
    public enum Security {
        /** A plain connection upgraded with STARTTLS before logging in; a server without STARTTLS is refused. */
        STARTTLS,
        /** TLS from the first byte (XEP-0368 "direct TLS"). */
        TLS,
        /** No encryption; allowed only to a loopback host. */
        NONE
    }

    /**
     * Time values of the connection; not configured (tests shorten them).
     *
     * @param connectTimeout   TCP connect and each step of the handshake (TLS, login, bind)
     * @param pingInterval     an XEP-0199 ping when nothing arrived for this long; no answer within the same time ends the connection
     * @param ackTimeout       how long a send waits for the server's stream-management ack before it reports a retryable failure
     * @param reconnectInitial first reconnection delay (growing to {@code reconnectMax} with jitter; see {@link Backoff})
     * @param reconnectMax     longest reconnection delay
     * @param firstAttemptWait how long {@code start} waits for the first connection before returning with the adapter still connecting
     */
    public record Timing(Duration connectTimeout, Duration pingInterval, Duration ackTimeout, Duration reconnectInitial,
            Duration reconnectMax, Duration firstAttemptWait) {
        public Timing {
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(pingInterval, "pingInterval");
            Objects.requireNonNull(ackTimeout, "ackTimeout");
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(firstAttemptWait, "firstAttemptWait");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(60), Duration.ofSeconds(15), Duration.ofSeconds(1),
                    Duration.ofMinutes(1), Duration.ofSeconds(30));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public XmppSettings {
        password = password == null ? Secret.NONE : password;
        security = security == null ? Security.STARTTLS : security;
        rooms = rooms == null ? List.of() : List.copyOf(rooms.stream().map(r -> r == null ? "" : r.strip()).toList());
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
    }

    public static XmppSettings defaults() {
        return new XmppSettings(false, null, Secret.NONE, null, DEFAULT_PORT, Security.STARTTLS, List.of(), null, true,
                DEFAULT_MAX_MESSAGE_LENGTH, List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for {@code jid} with {@code password}, every other key at its default. */
    public static XmppSettings of(String jid, String password) {
        XmppSettings d = defaults();
        return new XmppSettings(true, jid, Secret.of(password), d.host, d.port, d.security, d.rooms, d.roomNick, d.requireMention,
                d.maxMessageLength, d.allowedUsers, d.allowAllUsers, d.admins, d.homeChannel, d.unauthorizedDm);
    }

    /** These settings connecting to {@code connectHost}:{@code connectPort} with {@code sec}. */
    public XmppSettings withServer(String connectHost, int connectPort, Security sec) {
        return new XmppSettings(enabled, jid, password, connectHost, connectPort, sec, rooms, roomNick, requireMention, maxMessageLength,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    /** These settings joining {@code joined}. */
    public XmppSettings withRooms(List<String> joined) {
        return new XmppSettings(enabled, jid, password, host, port, security, joined, roomNick, requireMention, maxMessageLength,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    /** These settings splitting answers longer than {@code length}. */
    public XmppSettings withMaxMessageLength(int length) {
        return new XmppSettings(enabled, jid, password, host, port, security, rooms, roomNick, requireMention, length, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    /** These settings letting anyone talk to the agent ({@code allow_all_users}). */
    public XmppSettings withAllowAllUsers(boolean all) {
        return new XmppSettings(enabled, jid, password, host, port, security, rooms, roomNick, requireMention, maxMessageLength,
                allowedUsers, all, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        Jid account = Jid.parse(jid == null ? null : jid.strip());
        check.require(!enabled || (account != null && !account.local().isEmpty()), "jid",
                "must be a bare JID such as herald@example.org when " + check.path("enabled") + " is true, was " + quoted(jid));
        check.require(!enabled || password.isSet(), "password", "is required when " + check.path("enabled")
                + " is true; set password: ${XMPP_PASSWORD}");
        check.require(port >= 1 && port <= 65535, "port", "must be 1..65535, was " + port);
        check.require(maxMessageLength >= 64 && maxMessageLength <= 100_000, "max_message_length",
                "must be 64..100000 characters, was " + maxMessageLength);
        check.require(host == null || host.isBlank() || host.strip().matches("[A-Za-z0-9.:\\[\\]-]{1,253}"), "host",
                "must be a host name or an IP address, was " + quoted(host));
        check.require(security != Security.NONE || !enabled || account == null || isLoopback(connectHost(account)), "security",
                "none sends the password unencrypted and is allowed only to a loopback host (127.0.0.1, ::1, localhost), but the "
                        + "connection goes to " + quoted(account == null ? host : connectHost(account)) + "; use starttls or tls");
        for (String room : rooms) {
            Jid r = Jid.parse(room);
            check.require(r != null && !r.local().isEmpty() && !r.hasResource(), "rooms",
                    "must list bare room JIDs such as lobby@conference.example.org, had " + quoted(room));
        }
        check.require(roomNick == null || (!roomNick.isBlank() && roomNick.length() <= 64 && roomNick.chars().noneMatch(Character::isISOControl)),
                "room_nick", "must be 1-64 characters without control characters when set, was " + quoted(roomNick));
    }

    /** The account's JID, bare. */
    Jid account() {
        Jid j = Jid.parse(jid == null ? null : jid.strip());
        if (j == null || j.local().isEmpty()) {
            throw new IllegalArgumentException("xmpp - platforms.xmpp.jid must be a bare JID such as herald@example.org");
        }
        return new Jid(j.local(), j.domain(), "");
    }

    /** Where the connection goes: {@code host}, or the JID's domain. */
    String connectHost(Jid account) {
        return host == null || host.isBlank() ? account.domain() : host.strip();
    }

    /** The nick in rooms. */
    String nick() {
        return roomNick == null || roomNick.isBlank() ? account().local() : roomNick.strip();
    }

    /** The password, for the one place that sends it (the SASL exchange). */
    String passwordValue() {
        return password.reveal().orElseThrow(() -> new IllegalArgumentException("xmpp - no password; set platforms.xmpp.password"));
    }

    static boolean isLoopback(String host) {
        if (host == null) {
            return false;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.equals("localhost") || h.endsWith(".localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+|\\[?[0-9a-f:]+\\]?")) {
            return false; // a name other than localhost is not resolved here: it could point anywhere
        }
        try {
            return InetAddress.getByName(h.replace("[", "").replace("]", "")).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static String quoted(String s) {
        return s == null ? "(not set)" : "\"" + s + "\"";
    }

    @Override
    public String toString() {
        return "xmpp{jid=" + jid + ", password=" + password + ", host=" + host + ", port=" + port + ", security="
                + security.name().toLowerCase(Locale.ROOT) + ", rooms=" + rooms + ", require_mention=" + requireMention + "}";
    }
}
