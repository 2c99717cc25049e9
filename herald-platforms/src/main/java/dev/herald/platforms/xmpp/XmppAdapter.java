package dev.herald.platforms.xmpp;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.StreamEvent;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.retry.Backoff;
import dev.herald.core.session.StoreException;
import dev.herald.platforms.common.ConnectionLoop;
import dev.herald.platforms.common.FirstAttempt;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * XMPP as a Herald platform ({@code xmpp}): one client connection ({@link XmppConnection}) for one-to-one chats and
 * the configured rooms, inbound messages normalised by {@link XmppMessages}, answers written as XEP-0393 styling
 * ({@link XmppStyling}).
 *
 * <p>Lifecycle: one connection loop (a virtual thread) connects, logs in, sends initial presence (which makes the
 * server deliver the one-to-one messages it stored while Herald was away), joins every room asking for no history,
 * then reads the stream; when the connection ends it backs off ({@link Backoff}) and does it all again, rejoining the
 * rooms. A refused login ends the loop: at start it fails {@link #start} with a message naming the key; later it is
 * reported and the platform stays stopped until Herald restarts.
 *
 * <p>Inbound: the reading thread hands each message to {@link InboundSink#accept} itself, so the stream-management
 * ack the server gets counts only messages the gateway took. While the store cannot write, the message is held and
 * handed over again with a growing pause (nothing behind it is read meanwhile); when Herald is stopping it is left
 * unacknowledged and the connection closed, so the server keeps a one-to-one message for the next login.
 *
 * <p>Outbound: a part is sent with an id derived from its idempotency key (the same on every attempt, after a crash
 * too) and counts as sent once the server acknowledged it (stream management), else once written. With no
 * connection, or no ack in time, the send fails as retryable and the outbox offers it again.
 */
public final class XmppAdapter implements PlatformAdapter {
    private static final Logger log = LoggerFactory.getLogger(XmppAdapter.class);

    public static final Platform PLATFORM = Platform.of("xmpp");
    static final String CHATSTATES_NS = "http://jabber.org/protocol/chatstates";
    static final String MUC_NS = "http://jabber.org/protocol/muc";
    static final String MUC_OWNER_NS = "http://jabber.org/protocol/muc#owner";

    private final XmppSettings settings;
    private final javax.net.ssl.SSLSocketFactory tls;
    private final XmppSettings.Timing timing;
    private final Jid account;
    private final Rooms rooms;
    private final XmppMessages messages;
    /** Text only until the upload service is discovered; with files once it is. */
    private final Capabilities textOnly;
    private volatile Capabilities capabilities;
    private final XmppFiles files;
    /** The upload service found at the last connection, or null (none, or not asked yet). */
    private volatile XmppFiles.Service upload;
    /** True once the upload service was looked for on the current connection. */
    private volatile boolean discovered;
    /** Answers awaited for the {@code <iq>}s Herald sent, by id. */
    private final Map<String, java.util.concurrent.CompletableFuture<Element>> pendingIq = new ConcurrentHashMap<>();
    private final ConnectionLoop loop;
    private final FirstAttempt firstAttempt = new FirstAttempt();
    /** The correlation id of the turn each chat was last told "composing" for: one chat state per turn. */
    private final Map<String, String> composing = new ConcurrentHashMap<>();
    /** Ids of messages Herald sent lately, so a room's reflection is known even under another nick. */
    private final java.util.Set<String> sentIds = java.util.Collections.synchronizedSet(new LinkedHashSet<>());
    private volatile XmppConnection current;
    private volatile InboundSink sink;
    /** True while a message is held because the store cannot write. */
    private volatile boolean holding;

    /** An adapter for enabled, validated {@code settings}, paced by {@code timing}, trusting the JDK's certificate authorities. */
    public XmppAdapter(XmppSettings settings, XmppSettings.Timing timing, Clock clock) {
        this(settings, timing, clock, (javax.net.ssl.SSLSocketFactory) javax.net.ssl.SSLSocketFactory.getDefault());
    }

    /** An adapter whose TLS trusts what {@code tls} trusts (tests: a server certificate of their own). */
    XmppAdapter(XmppSettings settings, XmppSettings.Timing timing, Clock clock, javax.net.ssl.SSLSocketFactory tls) {
        this.tls = Objects.requireNonNull(tls, "tls");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timing = Objects.requireNonNull(timing, "timing");
        this.account = settings.account();
        this.rooms = new Rooms(new java.util.LinkedHashSet<>(settings.rooms().stream().map(r -> Jid.parse(r).bare()).toList()),
                settings.nick());
        this.files = new XmppFiles(account, settings.connectHost(account), timing.ackTimeout());
        this.messages = new XmppMessages(PLATFORM, account, rooms, settings.requireMention(), settings.allowAllUsers(), clock, files::ownHost);
        // one connection per account and resource: a second node would take the resource over (conflict)
        this.textOnly = new Capabilities(true, true, false, false, false, false, false, false, settings.maxMessageLength(),
                new TextFormat("xep-0393", text -> XmppStyling.render(text).length()), Capabilities.Delivery.SINGLE_CONNECTION);
        this.capabilities = textOnly;
        this.loop = new ConnectionLoop("xmpp-connection", "xmpp - the connection loop", log, this::gaveUp);
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public void start(InboundSink inboundSink) throws Exception {
        this.sink = Objects.requireNonNull(inboundSink, "sink");
        log.info("xmpp - connecting ({})", settings);
        loop.start(this::run);
        if (!firstAttempt.await(timing.firstAttemptWait(), this::close)) {
            log.warn("xmpp - not connected after {} ms; still connecting in the background", timing.firstAttemptWait().toMillis());
        }
    }

    /** True while a message is held, unacknowledged, because the store cannot write. */
    boolean holding() {
        return holding;
    }

    /** True when connected, in every configured room, and the upload service was looked for. */
    boolean ready() {
        return current != null && discovered && rooms.configured().stream().allMatch(rooms::joined);
    }

    /** What fetches the files people send ({@code jabber:x:oob} URLs), from the server's own hosts only. */
    public dev.herald.core.platform.MediaFetcher fetcher() {
        return files;
    }

    // ---- the connection loop --------------------------------------------------------------------

    private void run() {
        Backoff backoff = timing.backoff();
        while (!loop.stopping()) {
            report(ConnectionState.CONNECTING, "connecting to " + settings.connectHost(account) + ":" + settings.port());
            String ended;
            long connectedAt = 0;
            XmppConnection c = null;
            try {
                c = XmppConnection.open(settings, account, timing, tls);
                rooms.reset();
                discovered = false;
                current = c;
                XmppConnection connection = c;
                Thread.ofVirtual().name("xmpp-disco").start(() -> discover(connection));
                c.send("<presence/>");
                for (String room : rooms.configured()) {
                    join(c, room);
                }
                connectedAt = System.nanoTime();
                report(ConnectionState.CONNECTED, "connected as " + c.bound() + (c.streamManagement() ? " with stream management" : "")
                        + ", joining " + rooms.configured().size() + " room(s)");
                ended = c.run(this::stanza, timing.pingInterval(), what -> log.warn("xmpp - skipped {} from the server", what));
            } catch (XmppConnection.AuthRejected e) {
                String message = "xmpp - " + e.getMessage() + "; check platforms.xmpp.jid and platforms.xmpp.password";
                log.error(message);
                gaveUp(message);
                return;
            } catch (StanzaReader.Restricted e) {
                ended = "the server sent " + e.getMessage() + "; the connection is dropped and made again";
                log.warn("xmpp - {}", ended);
            } catch (IOException e) {
                ended = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            } catch (InterruptedException e) {
                return;
            } finally {
                current = null;
                composing.clear();
                pendingIq.values().forEach(f -> f.complete(null));
                pendingIq.clear();
                if (c != null) {
                    c.close();
                }
            }
            if (loop.stopping()) {
                return;
            }
            if (connectedAt != 0 && System.nanoTime() - connectedAt > timing.pingInterval().toNanos()) {
                backoff.reset(); // a connection that held is a success; one dropped at once (a resource conflict) keeps backing off
            }
            if (ended.contains("(conflict)")) {
                ended += " - another client logged in as " + account.bare() + "/" + XmppSettings.RESOURCE + " (a second Herald on this account?)";
            }
            Duration wait = backoff.next();
            report(ConnectionState.BACKING_OFF, ended + "; reconnecting in " + wait.toMillis() + " ms (attempt " + backoff.attempts() + ")");
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    /** Looks for the server's upload service (XEP-0363); files are offered while one is known. */
    private void discover(XmppConnection c) {
        try {
            Optional<XmppFiles.Service> found = files.discover(iq -> request(c, iq), account.domain());
            upload = found.orElse(null);
            capabilities = found.map(sv -> textOnly.withFiles(sv.maxBytes(), false)).orElse(textOnly);
            if (found.isPresent()) {
                log.info("xmpp - files go through the upload service {} (up to {} bytes)", found.get().jid(), found.get().maxBytes());
            } else {
                log.info("xmpp - the server offers no HTTP file upload (XEP-0363); files are not sent, the chat gets a line instead");
            }
        } catch (IOException e) {
            log.warn("xmpp - could not look for the upload service: {}", e.getMessage());
        } catch (InterruptedException e) {
            return;
        } finally {
            discovered = true;
        }
    }

    /** Sends {@code iq} on {@code c} with a fresh id; its answer, or null when none came within the ack timeout. */
    private Element request(XmppConnection c, String iq) throws IOException, InterruptedException {
        String id = "iq-" + UUID.randomUUID();
        var answer = new java.util.concurrent.CompletableFuture<Element>();
        pendingIq.put(id, answer);
        try {
            c.send(iq.replaceFirst("^<iq ", "<iq id='" + id + "' "));
            return answer.get(timing.ackTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause());
        } finally {
            pendingIq.remove(id);
        }
    }

    private void join(XmppConnection c, String room) throws IOException {
        c.send("<presence to='" + Xml.attr(room + "/" + rooms.nick()) + "' id='join-" + UUID.randomUUID() + "'><x xmlns='" + MUC_NS
                + "'><history maxstanzas='0'/></x></presence>");
    }

    private void report(ConnectionState state, String detail) {
        InboundSink s = sink;
        if (s != null) {
            s.connectionChanged(PLATFORM, state, detail);
        }
        firstAttempt.reported(state);
    }

    private void gaveUp(String message) {
        InboundSink s = sink;
        if (s != null) {
            s.connectionChanged(PLATFORM, ConnectionState.STOPPED, message);
        }
        firstAttempt.gaveUp(message);
    }

    // ---- inbound ----------------------------------------------------------------------------------

    /** One stanza from the reading thread; false leaves it unacknowledged (Herald is stopping). */
    private boolean stanza(Element e) throws InterruptedException {
        try {
            return switch (e.name()) {
                case "message" -> message(e);
                case "presence" -> {
                    presence(e);
                    yield true;
                }
                case "iq" -> {
                    iq(e);
                    yield true;
                }
                default -> true;
            };
        } catch (RuntimeException ex) {
            log.warn("xmpp - a <{}> stanza Herald cannot read was passed over ({})", e.name(), ex.toString());
            return true;
        }
    }

    private boolean message(Element e) throws InterruptedException {
        if ("groupchat".equals(e.attr("type")) && e.attr("id") != null && sentIds.contains(e.attr("id"))) {
            return true; // Herald's own message, reflected by the room
        }
        Optional<MessageEvent> event = messages.normalise(e);
        if (event.isEmpty()) {
            return true;
        }
        MessageEvent m = event.get();
        Admission a = acceptHolding(m);
        if (a == Admission.REJECTED_STOPPING) {
            log.info("xmpp - message {} in {} arrived while Herald is stopping; left unacknowledged for the server", m.messageId(),
                    m.source().chatId());
            return false;
        }
        log.debug("xmpp - message {} in {}: {}", m.messageId(), m.source().chatId(), a);
        return true;
    }

    /** Hands {@code e} to the gateway, again and again while its store cannot write. */
    private Admission acceptHolding(MessageEvent e) throws InterruptedException {
        try {
            return acceptWhenWritable(e);
        } finally {
            holding = false;
        }
    }

    private Admission acceptWhenWritable(MessageEvent e) throws InterruptedException {
        Backoff wait = null;
        while (true) {
            Admission a;
            try {
                a = sink.accept(e);
            } catch (RuntimeException ex) {
                if (!StoreException.isOutage(ex)) {
                    log.warn("xmpp - the gateway failed to accept message {} in {}; passed over", e.messageId(), e.source().chatId(), ex);
                    return Admission.REFUSED;
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
            if (a != Admission.REJECTED_UNAVAILABLE) {
                if (wait != null) {
                    log.info("xmpp - message {} held while the store could not write is stored now ({} tries)", e.messageId(), wait.attempts() + 1);
                }
                return a;
            }
            if (wait == null) {
                holding = true;
                wait = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5));
                log.info("xmpp - message {} in {} held: the store cannot write now; it is handed over again until it can (unacknowledged "
                        + "meanwhile)", e.messageId(), e.source().chatId());
            }
            try {
                Thread.sleep(wait.next());
            } catch (InterruptedException stopped) {
                log.warn("xmpp - message {} in {} was not stored before the adapter closed; it is left unacknowledged, so the server "
                        + "delivers it again at the next login (one-to-one) or it is lost (room)", e.messageId(), e.source().chatId());
                throw stopped;
            }
        }
    }

    private void presence(Element e) throws InterruptedException {
        Jid from = Jid.parse(e.attr("from"));
        if (from == null || !rooms.isRoom(from.bare()) || !from.hasResource()) {
            return;
        }
        String room = from.bare();
        String type = e.attr("type");
        if ("error".equals(type)) {
            String condition = e.child("error", XmppConnection.CLIENT_NS).flatMap(err -> err.children().stream().findFirst())
                    .map(Element::name).orElse("unknown");
            if (from.resource().equals(rooms.nick())) {
                rooms.left(room);
                log.warn("xmpp - could not join room {} as {} ({}); the next connection tries again", room, rooms.nick(), condition);
            }
            return;
        }
        Optional<Element> x = e.child("x", XmppMessages.MUC_USER_NS);
        boolean self = x.map(el -> el.children("status", XmppMessages.MUC_USER_NS).stream().anyMatch(s -> "110".equals(s.attr("code"))))
                .orElse(false) || from.resource().equals(rooms.nick());
        boolean present = !"unavailable".equals(type);
        if (self) {
            if (present && !rooms.joined(room)) {
                rooms.joinedNow(room);
                log.info("xmpp - joined room {} as {}", room, from.resource());
                boolean created = x.map(el -> el.children("status", XmppMessages.MUC_USER_NS).stream()
                        .anyMatch(s -> "201".equals(s.attr("code")))).orElse(false);
                if (created) {
                    unlock(room);
                }
            } else if (!present) {
                rooms.left(room);
                log.warn("xmpp - left room {} (removed or the room closed); the next connection joins again", room);
            }
            return;
        }
        String real = x.flatMap(el -> el.child("item", XmppMessages.MUC_USER_NS)).map(i -> Jid.parse(i.attr("jid"))).map(Jid::bare)
                .orElse(null);
        rooms.occupant(room, from.resource(), real, present);
    }

    /** A room Herald's join created is locked until configured: accept the default configuration (XEP-0045, 10.1.2). */
    private void unlock(String room) {
        XmppConnection c = current;
        try {
            if (c != null) {
                c.send("<iq type='set' to='" + Xml.attr(room) + "' id='unlock-" + UUID.randomUUID() + "'><query xmlns='" + MUC_OWNER_NS
                        + "'><x xmlns='jabber:x:data' type='submit'/></query></iq>");
            }
        } catch (IOException ex) {
            log.debug("xmpp - could not unlock new room {}: {}", room, ex.getMessage());
        }
    }

    /** The server's requests get an answer, as RFC 6120 requires: a ping its result, anything else "not supported". */
    private void iq(Element e) {
        String type = e.attr("type");
        if ("result".equals(type) || "error".equals(type)) {
            var waiting = e.attr("id") == null ? null : pendingIq.remove(e.attr("id"));
            if (waiting != null) {
                waiting.complete(e);
            }
            return;
        }
        if (!"get".equals(type) && !"set".equals(type)) {
            return;
        }
        XmppConnection c = current;
        if (c == null) {
            return;
        }
        String to = e.attr("from") == null ? "" : " to='" + Xml.attr(e.attr("from")) + "'";
        String id = Xml.attr(Objects.requireNonNullElse(e.attr("id"), ""));
        boolean ping = e.child("ping", "urn:xmpp:ping").isPresent();
        try {
            c.send(ping ? "<iq type='result' id='" + id + "'" + to + "/>"
                    : "<iq type='error' id='" + id + "'" + to + "><error type='cancel'><service-unavailable "
                            + "xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>");
        } catch (IOException ex) {
            log.debug("xmpp - could not answer an iq: {}", ex.getMessage());
        }
    }

    // ---- outbound ---------------------------------------------------------------------------------

    @Override
    public SendResult send(OutboundMessage m) {
        XmppConnection c = current;
        Jid to = Jid.parse(m.target().chatId());
        if (to == null) {
            return SendResult.failed("xmpp - " + m.target().chatId().length() + "-character chat id is not a JID", false);
        }
        if (c == null) {
            return SendResult.failed("xmpp - not connected; the part is sent again after the reconnect", true);
        }
        boolean room = rooms.isRoom(to.bare());
        if (room && !rooms.joined(to.bare())) {
            return SendResult.failed("xmpp - not in room " + to.bare() + " yet; the part is sent again once it is joined", true);
        }
        String id = stanzaId(m);
        sentIds.add(id);
        trimSentIds();
        composing.remove(m.target().chatId());
        if (m.file() != null) {
            return sendFile(c, m, to, room, id);
        }
        return deliver(c, message(to, room, id, Xml.text(XmppStyling.render(m.text())), ""), id);
    }

    private static String message(Jid to, boolean room, String id, String escapedBody, String extra) {
        return "<message to='" + Xml.attr(to.bare()) + "' type='" + (room ? "groupchat" : "chat") + "' id='" + id + "'><body>"
                + escapedBody + "</body>" + extra + "<origin-id xmlns='" + XmppMessages.SID_NS + "' id='" + id
                + "'/><active xmlns='" + CHATSTATES_NS + "'/></message>";
    }

    /**
     * A file part: a slot from the upload service, the bytes PUT there, then the caption (if any) as its own message and
     * the GET URL as a message with out-of-band data, which clients show inline. A part sent again (no ack, a crash)
     * uploads again: at least once.
     */
    private SendResult sendFile(XmppConnection c, OutboundMessage m, Jid to, boolean room, String id) {
        XmppFiles.Service service = upload;
        var f = m.file();
        if (service == null) {
            return SendResult.failed("xmpp - the server offers no HTTP file upload; file " + f.name() + " is not sent", false);
        }
        if (f.size() > service.maxBytes()) {
            return SendResult.failed("xmpp - file " + f.name() + " is larger than the upload service takes (" + service.maxBytes() + " bytes)",
                    false);
        }
        try {
            byte[] bytes = f.read(service.maxBytes());
            XmppFiles.Slot slot = files.slot(iq -> request(c, iq), service, f.name(), bytes.length, f.mimeType());
            files.put(slot, bytes, f.mimeType());
            String caption = m.text() != null && !m.text().isBlank() ? m.text() : f.caption();
            if (caption != null && !caption.isBlank()) {
                SendResult r = deliver(c, message(to, room, id + "-c", Xml.text(XmppStyling.render(caption)), ""), id + "-c");
                if (!r.success()) {
                    return r;
                }
            }
            String url = slot.get().toString();
            return deliver(c, message(to, room, id, Xml.text(url), "<x xmlns='" + XmppFiles.OOB_NS + "'><url>" + Xml.text(url) + "</url></x>"),
                    id);
        } catch (XmppFiles.Refused e) {
            return SendResult.failed("xmpp - " + e.getMessage(), false);
        } catch (IOException e) {
            return SendResult.failed("xmpp - sending file " + f.name() + " failed (" + e.getMessage() + "); it is uploaded again", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("xmpp - interrupted while sending a file", true);
        }
    }

    private SendResult deliver(XmppConnection c, String stanza, String id) {
        try {
            if (c.sendConfirmed(stanza, timing.ackTimeout())) {
                return SendResult.sent(id);
            }
            return SendResult.failed("xmpp - the server did not acknowledge message " + id + " within " + timing.ackTimeout().toMillis()
                    + " ms; it is sent again with the same id", true);
        } catch (IOException e) {
            return SendResult.failed("xmpp - sending failed (" + e.getMessage() + "); it is sent again with the same id", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("xmpp - interrupted while sending", true);
        }
    }

    /** The message id of a part: derived from its idempotency key, so every attempt carries the same one. */
    static String stanzaId(OutboundMessage m) {
        if (m.idempotencyKey() == null) {
            return "herald-" + UUID.randomUUID();
        }
        return "herald-" + XmppMessages.sha256(m.idempotencyKey()).substring(0, 32);
    }

    private void trimSentIds() {
        synchronized (sentIds) {
            var it = sentIds.iterator();
            while (sentIds.size() > 1000 && it.hasNext()) {
                it.next();
                it.remove();
            }
        }
    }

    /** A running turn shows as "composing" (XEP-0085), once per turn; the answer itself carries "active". */
    @Override
    public void progress(ChatTarget target, String correlationId, StreamEvent event) {
        if (!(event instanceof StreamEvent.Typing)) {
            return;
        }
        XmppConnection c = current;
        Jid to = Jid.parse(target.chatId());
        if (c == null || to == null) {
            return;
        }
        String key = correlationId == null ? "" : correlationId;
        if (key.equals(composing.put(target.chatId(), key))) {
            return;
        }
        boolean room = rooms.isRoom(to.bare());
        if (room && !rooms.joined(to.bare())) {
            return;
        }
        try {
            c.send("<message to='" + Xml.attr(to.bare()) + "' type='" + (room ? "groupchat" : "chat") + "'><composing xmlns='"
                    + CHATSTATES_NS + "'/><no-store xmlns='urn:xmpp:hints'/></message>");
        } catch (IOException e) {
            log.debug("xmpp - could not send the composing state: {}", e.getMessage());
        }
    }

    /** Closes the connection; sending needs it, so on this node replies wait until it connects again. */
    @Override
    public void stopReceiving() {
        close();
    }

    @Override
    public void close() {
        loop.stop(() -> {
            XmppConnection c = current;
            if (c != null) {
                c.close();
            }
        });
    }
}
