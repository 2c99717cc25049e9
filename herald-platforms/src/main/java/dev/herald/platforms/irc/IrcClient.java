package dev.herald.platforms.irc;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IRC client: one connection at a time, registered, in its channels, kept alive, replaced after the core's
 * {@link Backoff} when it goes away.
 *
 * <p>Registration: {@code CAP LS 302}, {@code PASS} (when set), {@code NICK}, {@code USER}. From what the server offers
 * (IRCv3 capability negotiation) Herald asks for {@code account-tag}, {@code extended-join} and {@code account-notify},
 * which tell who is logged in to which account, and for {@code sasl} when {@code platforms.irc.sasl} is set: then
 * {@code AUTHENTICATE PLAIN} runs before {@code CAP END}, and a refused login (904), a server without SASL PLAIN, or a
 * refused server password (464) ends the loop for good through {@link Handler#failed}: retrying a wrong password
 * changes nothing. A taken nick (433) gets a {@code _} appended; after the welcome (001) the nick is asked for again at
 * every idle check and whenever its holder quits or changes nick. After 001 Herald joins its channels and reports
 * CONNECTED once each is joined (or refused, or {@link IrcSettings.Timing#joinWait()} passed), so replies waiting for
 * redelivery find the channels joined.
 *
 * <p>Keep-alive: a server PING is answered at once; a connection quiet for {@code idlePing} gets Herald's own PING, and
 * one that answers nothing for {@code pongTimeout} after it is dropped and replaced.
 *
 * <p>Sends ({@link #say}) come from other threads. One send at a time writes its lines, each through the {@link Pacer}
 * (flood control), then a {@code PING} with a fresh token; the send is done when the server's {@code PONG} for that token
 * arrives, which (servers answer in order) means the server has read every line of it. A connection that ends first
 * fails the send, which the outbox then retries: the lines of that send may then reach the channel twice (at least once).
 *
 * <p>Concurrency: the loop thread alone reads and owns the protocol state (caps, nick, accounts of others, channels);
 * what sends read ({@link #current}, the nick and the own prefix) is volatile. Writes are serialised by the connection.
 */
final class IrcClient {
    private static final Logger log = LoggerFactory.getLogger(IrcClient.class);
    /** What Herald asks for when the server offers it: who is logged in to which account. */
    static final List<String> ACCOUNT_CAPS = List.of("account-tag", "extended-join", "account-notify");
    private static final int MAX_ACCOUNTS = 10_000;
    private static final int SASL_CHUNK = 400;
    /** The longest user and host a server adds to the bot's prefix when it relays a line (USERLEN 10, HOSTLEN 63). */
    private static final int WORST_USER_HOST = 10 + 1 + 63;

    /** One PRIVMSG as it arrived, with what the client knew when it arrived. */
    record Inbound(IrcLine line, String ownNick, boolean accounts, String account) {
    }

    /** Where the client reports; called on the loop thread, so implementations must not block. */
    interface Handler {
        void privmsg(Inbound message);

        void connection(ConnectionState state, String detail);

        /** The loop gave up for good (a refused password or login); {@code message} is for the operator. */
        void failed(String message);
    }

    /** A send found no registered connection. */
    static final class NotConnected extends Exception {
        NotConnected(String message) {
            super(message, null, false, false);
        }
    }

    private record Ending(String detail, boolean healthy, boolean giveUp) {
    }

    private final IrcSettings settings;
    private final IrcSettings.Timing timing;
    private final Handler handler;
    private final ConnectionLoop loop;
    private final Pacer pacer;
    private final Object sending = new Object();
    private final AtomicLong tokens = new AtomicLong();
    private final Map<String, CompletableFuture<Void>> confirms = new ConcurrentHashMap<>();
    private volatile IrcConnection current;
    private volatile boolean ready;
    private volatile String nick;
    private volatile String ownPrefix;

    IrcClient(IrcSettings settings, IrcSettings.Timing timing, Handler handler) {
        this.settings = settings;
        this.timing = timing;
        this.handler = handler;
        this.loop = new ConnectionLoop("irc-connection", "irc - the connection loop", log, handler::failed);
        this.pacer = new Pacer(timing.burst(), timing.pace());
        this.nick = settings.nick();
    }

    void start() {
        loop.start(this::run);
    }

    /** Says QUIT, closes the connection and stops the loop. Idempotent. */
    void close() {
        loop.stop(() -> {
            IrcConnection c = current;
            if (c != null) {
                try {
                    c.send(IrcLine.format("QUIT", "Herald stopping"));
                } catch (IOException | RuntimeException e) {
                    // closing anyway
                }
                c.close();
            }
        });
    }

    /** The nick the bot has now (the configured one, or it with {@code _} appended). */
    String nick() {
        return nick;
    }

    /**
     * The most bytes of text a {@code PRIVMSG target :text} line may carry so that the line the server relays, with
     * {@code :nick!user@host } in front and CR LF after, stays within 512 bytes. The user and host are counted at the
     * longest a server gives (or as the server said, when longer), since a server may change them (a cloak).
     */
    int textBudget(String target) {
        String n = nick;
        String prefix = ownPrefix;
        int relayPrefix = Math.max(prefix == null ? 0 : IrcText.bytes(prefix), IrcText.bytes(n) + 1 + WORST_USER_HOST) + 2; // ':' and ' '
        int command = IrcText.bytes("PRIVMSG " + target + " :");
        return IrcLine.MAX_OUTBOUND_BYTES - relayPrefix - command;
    }

    /**
     * Sends {@code lines} to {@code target} as PRIVMSGs, paced, and returns once the server confirmed it read them.
     *
     * @throws NotConnected  there is no registered connection now (nothing was sent)
     * @throws IOException   the connection failed or did not confirm in time (some lines may have gone out)
     */
    void say(String target, List<String> lines) throws NotConnected, IOException, InterruptedException {
        synchronized (sending) {
            IrcConnection c = current;
            if (c == null || !ready) {
                throw new NotConnected("not connected to " + settings.host() + ":" + settings.port());
            }
            for (String text : lines) {
                pacer.acquire();
                if (current != c) {
                    throw new IOException("the connection was replaced while sending");
                }
                c.send(IrcLine.format("PRIVMSG", target, text));
            }
            String token = "herald-" + tokens.incrementAndGet();
            CompletableFuture<Void> pong = new CompletableFuture<>();
            confirms.put(token, pong);
            try {
                c.send(IrcLine.format("PING", token));
                pong.get(timing.sendConfirm().toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IOException("the server did not confirm the lines within " + timing.sendConfirm().toMillis() + " ms");
            } catch (ExecutionException e) {
                throw new IOException(e.getCause().getMessage());
            } finally {
                confirms.remove(token);
            }
        }
    }

    /** Sends a NOTICE (a line no bot answers) to {@code target}, paced; best-effort. */
    void notice(String target, String text) {
        IrcConnection c = current;
        if (c == null || !ready) {
            return;
        }
        try {
            pacer.acquire();
            c.send(IrcLine.format("NOTICE", target, text));
        } catch (IOException | RuntimeException e) {
            log.debug("irc - a notice to {} was not sent: {}", target, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the loop ------------------------------------------------------------------------------

    private void run() {
        Backoff backoff = timing.backoff();
        while (!loop.stopping()) {
            Ending e = connectOnce();
            if (loop.stopping()) {
                return;
            }
            if (e.giveUp()) {
                log.error(e.detail());
                handler.failed(e.detail());
                return;
            }
            if (e.healthy()) {
                backoff.reset();
            }
            Duration wait = backoff.next();
            handler.connection(ConnectionState.BACKING_OFF, e.detail() + "; reconnecting in " + wait.toMillis() + " ms (attempt "
                    + backoff.attempts() + ")");
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    private Ending connectOnce() {
        handler.connection(ConnectionState.CONNECTING, settings.host() + ":" + settings.port() + (settings.tls() ? " over TLS" : ""));
        IrcConnection c = null;
        try {
            c = IrcConnection.open(settings.host(), settings.port(), settings.tls(), timing.connectTimeout());
            current = c;
            return new Session(c).converse();
        } catch (EOFException e) {
            return new Ending("the server closed the connection", false, false);
        } catch (javax.net.ssl.SSLException e) {
            return new Ending("TLS with " + settings.host() + ":" + settings.port() + " failed (" + e.getMessage() + ")", false, false);
        } catch (IOException e) {
            return new Ending("connection to " + settings.host() + ":" + settings.port() + " failed (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", false, false);
        } finally {
            ready = false;
            current = null;
            if (c != null) {
                c.close();
            }
            confirms.values().forEach(f -> f.completeExceptionally(new IOException("the connection ended before the server confirmed")));
        }
    }

    /** One connection's protocol state, from the first line to its end; only the loop thread uses it. */
    private final class Session {
        private final IrcConnection c;
        private final Set<String> offered = new LinkedHashSet<>();
        private final Set<String> enabled = new HashSet<>();
        private final Set<String> pendingJoins = new LinkedHashSet<>();
        private final List<String> joined = new ArrayList<>();
        private final Map<String, String> accounts = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > MAX_ACCOUNTS;
            }
        };
        private boolean registered;
        private boolean saslDone;
        private boolean reportedConnected;
        private long joinDeadline;
        private long lastHeard = System.nanoTime();
        private long pingSentAt;
        private int nickTries;

        Session(IrcConnection c) {
            this.c = c;
        }

        Ending converse() throws IOException {
            nick = settings.nick();
            ownPrefix = null;
            send("CAP", "LS", "302");
            String password = settings.passwordValue();
            if (password != null) {
                c.send(IrcLine.format("PASS", password));
            }
            send("NICK", nick);
            send("USER", userName(), "0", "*", "Herald");
            long deadline = System.nanoTime() + timing.registrationTimeout().toNanos();
            while (!loop.stopping()) {
                long now = System.nanoTime();
                if (!registered && now > deadline) {
                    return new Ending("no welcome (001) from the server within " + timing.registrationTimeout().toMillis() + " ms", false, false);
                }
                if (registered && !reportedConnected && now > joinDeadline) {
                    reportConnected();
                }
                IrcConnection.Read r = c.next(waitFor(now, deadline));
                switch (r) {
                    case IrcConnection.Quiet q -> {
                        Ending e = quiet();
                        if (e != null) {
                            return e;
                        }
                    }
                    case IrcConnection.Bad b -> log.warn("irc - skipped a line from the server: {}", b.problem());
                    case IrcConnection.Line l -> {
                        lastHeard = System.nanoTime();
                        pingSentAt = 0;
                        Ending e;
                        try {
                            e = handle(l.line());
                        } catch (RuntimeException ex) {
                            log.warn("irc - a {} line Herald cannot handle was skipped ({})", l.line().describe(), ex.toString());
                            e = null;
                        }
                        if (e != null) {
                            return e;
                        }
                    }
                }
            }
            return new Ending("stopping", reportedConnected, false);
        }

        private Duration waitFor(long now, long deadline) {
            long until;
            if (!registered) {
                until = deadline;
            } else if (!reportedConnected) {
                until = joinDeadline;
            } else if (pingSentAt != 0) {
                until = pingSentAt + timing.pongTimeout().toNanos();
            } else {
                until = lastHeard + timing.idlePing().toNanos();
            }
            return Duration.ofNanos(Math.max(1_000_000, until - now));
        }

        /** Nothing arrived in time: the keep-alive step. */
        private Ending quiet() throws IOException {
            long now = System.nanoTime();
            if (!registered || !reportedConnected) {
                return null;
            }
            if (pingSentAt != 0 && now - pingSentAt >= timing.pongTimeout().toNanos()) {
                return new Ending("the server answered nothing for " + timing.pongTimeout().toMillis() + " ms after a PING", true, false);
            }
            if (pingSentAt == 0 && now - lastHeard >= timing.idlePing().toNanos()) {
                send("PING", "keepalive");
                pingSentAt = now;
                regainNick();
            }
            return null;
        }

        private Ending handle(IrcLine l) throws IOException {
            switch (l.command()) {
                case "PING" -> send("PONG", l.params().isEmpty() ? "herald" : l.last());
                case "PONG" -> {
                    CompletableFuture<Void> f = l.last() == null ? null : confirms.get(l.last());
                    if (f != null) {
                        f.complete(null);
                    }
                }
                case "CAP" -> {
                    return cap(l);
                }
                case "AUTHENTICATE" -> {
                    if ("+".equals(l.param(0)) && settings.sasl().configured()) {
                        authenticate();
                    }
                }
                case "903", "907" -> {
                    saslDone = true;
                    send("CAP", "END");
                }
                case "900" -> log.info("irc - logged in to the account {}", l.param(2));
                case "902", "904", "905", "906" -> {
                    return new Ending("irc - the server refused the SASL PLAIN login as " + settings.sasl().username() + " (" + l.command()
                            + "); check platforms.irc.sasl.username and platforms.irc.sasl.password", false, true);
                }
                case "421" -> {
                    if ("CAP".equalsIgnoreCase(l.param(1)) && settings.sasl().configured()) {
                        return noSasl("does not negotiate capabilities (CAP)");
                    }
                }
                case "433", "436", "437" -> {
                    if (!registered) {
                        nextNick();
                    }
                }
                case "432" -> {
                    if (!registered) {
                        return new Ending("irc - the server refused the nick " + nick + " as not valid (432); change platforms.irc.nick",
                                false, true);
                    }
                }
                case "464" -> {
                    return new Ending("irc - the server refused the password (464); check platforms.irc.password", false, true);
                }
                case "465" -> {
                    return new Ending("irc - the server says this connection is banned (465)", false, true);
                }
                case "001" -> {
                    return welcome(l);
                }
                case "ERROR" -> {
                    String why = printable(l.last());
                    if (!registered && settings.passwordValue() != null && why.toLowerCase(Locale.ROOT).contains("password")) {
                        return new Ending("irc - the server refused the connection (" + why + "); check platforms.irc.password", false, true);
                    }
                    return new Ending("the server closed the link (" + why + ")", reportedConnected, false);
                }
                case "JOIN" -> join(l);
                case "PART", "KICK" -> left(l);
                case "NICK" -> renamed(l);
                case "QUIT" -> {
                    accounts.remove(IrcIds.fold(String.valueOf(l.nick())));
                    if (IrcIds.same(l.nick(), settings.nick())) {
                        regainNick();
                    }
                }
                case "ACCOUNT" -> {
                    if (l.nick() != null && l.param(0) != null) {
                        remember(l.nick(), l.param(0));
                    }
                }
                case "403", "405", "471", "473", "474", "475", "476", "477", "479" -> {
                    String channel = l.param(1);
                    if (channel != null && pendingJoins.remove(IrcIds.fold(channel))) {
                        log.warn("irc - could not join {}: {} ({})", channel, printable(l.last()), l.command());
                    }
                }
                case "PRIVMSG" -> {
                    if (registered) {
                        handler.privmsg(new Inbound(l, nick, accountsKnown(), account(l)));
                    }
                }
                default -> {
                    // numerics and commands a bot does not need (MOTD, NAMES, MODE, TOPIC, NOTICE, ...)
                }
            }
            return null;
        }

        private Ending cap(IrcLine l) throws IOException {
            String sub = String.valueOf(l.param(1)).toUpperCase(Locale.ROOT);
            switch (sub) {
                case "LS" -> {
                    boolean more = "*".equals(l.param(2)) && l.params().size() > 3;
                    for (String cap : String.valueOf(l.last()).split(" ")) {
                        if (!cap.isBlank()) {
                            offered.add(cap.strip());
                        }
                    }
                    if (!more && !registered) {
                        return request();
                    }
                }
                case "ACK" -> {
                    for (String cap : String.valueOf(l.last()).split(" ")) {
                        if (!cap.isBlank()) {
                            enabled.add(cap.strip().replaceFirst("^[-~=]", "").toLowerCase(Locale.ROOT));
                        }
                    }
                    if (!registered) {
                        if (settings.sasl().configured() && enabled.contains("sasl")) {
                            send("AUTHENTICATE", "PLAIN");
                        } else {
                            send("CAP", "END");
                        }
                    }
                }
                case "NAK" -> {
                    if (!registered) {
                        if (settings.sasl().configured()) {
                            return noSasl("refused the capabilities Herald asked for (" + printable(l.last()) + ")");
                        }
                        send("CAP", "END");
                    }
                }
                default -> {
                    // NEW, DEL, LIST: capabilities changing later are not followed
                }
            }
            return null;
        }

        /** After the server's capability list: ask for what Herald uses, or end negotiation. */
        private Ending request() throws IOException {
            List<String> want = new ArrayList<>();
            if (settings.sasl().configured()) {
                String sasl = offered.stream().filter(c -> c.equalsIgnoreCase("sasl") || c.toLowerCase(Locale.ROOT).startsWith("sasl="))
                        .findFirst().orElse(null);
                if (sasl == null) {
                    return noSasl("does not offer SASL");
                }
                if (sasl.contains("=") && !List.of(sasl.substring(sasl.indexOf('=') + 1).toUpperCase(Locale.ROOT).split(",")).contains("PLAIN")) {
                    return noSasl("offers SASL without PLAIN (" + sasl + ")");
                }
                want.add("sasl");
            }
            for (String cap : ACCOUNT_CAPS) {
                if (offered.stream().anyMatch(o -> o.equalsIgnoreCase(cap) || o.toLowerCase(Locale.ROOT).startsWith(cap + "="))) {
                    want.add(cap);
                }
            }
            if (want.isEmpty()) {
                send("CAP", "END");
            } else {
                send("CAP", "REQ", String.join(" ", want));
            }
            return null;
        }

        private Ending noSasl(String what) {
            return new Ending("irc - platforms.irc.sasl is set, but the server " + what + "; Herald does not connect without the login "
                    + "(remove platforms.irc.sasl to connect without it)", false, true);
        }

        private void authenticate() throws IOException {
            String user = settings.sasl().username();
            String pass = settings.sasl().password().reveal().orElse("");
            String payload = Base64.getEncoder().encodeToString((user + "\0" + user + "\0" + pass).getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < payload.length(); i += SASL_CHUNK) {
                c.send(IrcLine.format("AUTHENTICATE", payload.substring(i, Math.min(payload.length(), i + SASL_CHUNK))));
            }
            if (payload.length() % SASL_CHUNK == 0) {
                c.send(IrcLine.format("AUTHENTICATE", "+"));
            }
        }

        private Ending welcome(IrcLine l) throws IOException {
            if (settings.sasl().configured() && !saslDone) {
                return noSasl("welcomed Herald without a SASL login");
            }
            registered = true;
            if (l.param(0) != null) {
                nick = l.param(0);
            }
            String last = String.valueOf(l.last());
            String word = last.substring(last.lastIndexOf(' ') + 1);
            if (word.startsWith(nick + "!") && word.contains("@")) {
                ownPrefix = word;
            }
            if (accountsKnown()) {
                log.info("irc - registered as {}; the server reports accounts ({}): allowed_users are accounts", nick,
                        String.join(", ", enabled.stream().filter(ACCOUNT_CAPS::contains).sorted().toList()));
            } else {
                log.warn("irc - registered as {}; the server reports no accounts (no account-tag, extended-join or account-notify): "
                        + "allowed_users are nicks, which anyone can take while their owner is away; see docs/platforms/irc.md", nick);
            }
            joinDeadline = System.nanoTime() + timing.joinWait().toNanos();
            for (String channel : settings.channelsToJoin()) {
                pendingJoins.add(IrcIds.fold(channel));
                send("JOIN", channel);
            }
            if (pendingJoins.isEmpty()) {
                reportConnected();
            }
            return null;
        }

        private void join(IrcLine l) {
            String channel = l.param(0);
            if (channel == null || l.nick() == null) {
                return;
            }
            if (IrcIds.same(l.nick(), nick)) {
                if (l.source().contains("!") && l.source().contains("@")) {
                    ownPrefix = l.source();
                }
                joined.add(channel);
                if (pendingJoins.remove(IrcIds.fold(channel)) && pendingJoins.isEmpty() && !reportedConnected) {
                    reportConnected();
                }
                return;
            }
            if (enabled.contains("extended-join") && l.param(1) != null) {
                remember(l.nick(), l.param(1));
            }
        }

        private void left(IrcLine l) {
            String who = l.command().equals("KICK") ? l.param(1) : l.nick();
            if (IrcIds.same(who, nick) && l.param(0) != null) {
                joined.removeIf(ch -> IrcIds.same(ch, l.param(0)));
                log.warn("irc - left {} ({}{}); it is joined again at the next connection", l.param(0), l.command().toLowerCase(Locale.ROOT),
                        l.command().equals("KICK") ? " by " + l.nick() : "");
            }
        }

        private void renamed(IrcLine l) {
            String to = l.param(0);
            if (to == null || l.nick() == null) {
                return;
            }
            if (IrcIds.same(l.nick(), nick)) {
                nick = to;
                log.info("irc - the bot's nick is {} now", to);
                return;
            }
            String account = accounts.remove(IrcIds.fold(l.nick()));
            if (account != null) {
                accounts.put(IrcIds.fold(to), account);
            }
            if (IrcIds.same(l.nick(), settings.nick())) {
                regainNick();
            }
        }

        private void remember(String who, String account) {
            if ("*".equals(account) || account.isBlank()) {
                accounts.remove(IrcIds.fold(who));
            } else {
                accounts.put(IrcIds.fold(who), account);
            }
        }

        private boolean accountsKnown() {
            return ACCOUNT_CAPS.stream().anyMatch(enabled::contains);
        }

        /** The sender's account: the message's account tag, else what JOIN and ACCOUNT said; null when not logged in or unknown. */
        private String account(IrcLine l) {
            if (enabled.contains("account-tag")) {
                String tagged = l.tags().get("account");
                if (tagged != null && !tagged.isBlank()) {
                    return tagged;
                }
            }
            return l.nick() == null ? null : accounts.get(IrcIds.fold(l.nick()));
        }

        private void nextNick() throws IOException {
            nickTries++;
            String base = settings.nick();
            String next = nickTries <= 3 ? base + "_".repeat(nickTries) : base.substring(0, Math.min(base.length(), 6)) + (nickTries * 7 % 1000);
            log.warn("irc - the nick {} is taken; trying {}", nick, next);
            nick = next;
            send("NICK", next);
        }

        private void regainNick() {
            if (registered && !IrcIds.same(nick, settings.nick())) {
                try {
                    send("NICK", settings.nick());
                } catch (IOException e) {
                    log.debug("irc - asking for the nick back failed: {}", e.toString());
                }
            }
        }

        private void reportConnected() {
            reportedConnected = true;
            ready = true;
            String missing = pendingJoins.isEmpty() ? "" : "; not joined: " + String.join(", ", pendingJoins);
            handler.connection(ConnectionState.CONNECTED, "as " + nick + " on " + settings.host() + (joined.isEmpty() ? ""
                    : " in " + String.join(", ", joined)) + missing);
        }

        private void send(String command, String... params) throws IOException {
            c.send(IrcLine.format(command, params));
        }
    }

    private String userName() {
        String u = settings.nick().replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
        return u.isEmpty() ? "herald" : u.substring(0, Math.min(10, u.length()));
    }

    /** Server text for a log line: control characters removed, at most 200 characters. */
    static String printable(String s) {
        if (s == null) {
            return "";
        }
        String t = s.replaceAll("[\\p{Cntrl}]", "");
        return t.length() > 200 ? t.substring(0, 200) + "…" : t;
    }
}
