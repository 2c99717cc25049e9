package dev.herald.platforms.xmpp;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One client-to-server XMPP connection (RFC 6120) from TCP connect to close: the handshake (STARTTLS or direct TLS,
 * SASL, resource binding, stream management), then the stream's stanzas handed to a {@link Handler} one at a time.
 *
 * <p>Concurrency: the thread that calls {@link #open} and then {@link #run} is the only reader; writes come from any
 * thread (replies, chat states, acks, pings) under one lock, so stanzas never interleave. The stream-management
 * counters (XEP-0198, without resumption): {@code handled} (inbound stanzas the handler finished, what an
 * {@code <a h=…/>} reports) is written by the reader only; {@code sent} counts outbound stanzas under the write lock;
 * {@code acked} is the server's last {@code <a h=…/>}, which {@link #sendConfirmed} waits for.
 *
 * <p>Why no resumption: a session that ends without it is destroyed at once, and the server puts the one-to-one
 * messages it had sent but Herald had not acknowledged into offline storage, which it delivers on the next login
 * (Prosody's mod_smacks does; the message ids make the repeat a duplicate the gateway drops).
 */
final class XmppConnection implements AutoCloseable {
    static final String CLIENT_NS = "jabber:client";
    static final String TLS_NS = "urn:ietf:params:xml:ns:xmpp-tls";
    static final String SASL_NS = "urn:ietf:params:xml:ns:xmpp-sasl";
    static final String BIND_NS = "urn:ietf:params:xml:ns:xmpp-bind";
    static final String SESSION_NS = "urn:ietf:params:xml:ns:xmpp-session";
    static final String SM_NS = "urn:xmpp:sm:3";
    static final String STREAMS_ERROR_NS = "urn:ietf:params:xml:ns:xmpp-streams";
    /** The largest stanza kept; a larger one is skipped with a log line (Prosody's own default limit is 256 KiB). */
    static final long MAX_STANZA_CHARS = 512 * 1024;

    /** What the connection hands its stanzas to, on the reading thread. */
    /** Sends an {@code <iq>} (written without an id; one is added) and waits for its answer: null when none came in time. */
    interface Requester {
        Element request(String iq) throws IOException, InterruptedException;
    }

    interface Handler {
        /**
         * Handles one {@code message}, {@code presence} or {@code iq}; true when it is done with it (it is then
         * acknowledged to the server), false to leave it unacknowledged and end the connection.
         */
        boolean stanza(Element stanza) throws InterruptedException;
    }

    /** The server refused the login (wrong password, unknown account): trying again will not help. */
    static final class AuthRejected extends IOException {
        AuthRejected(String message) {
            super(message);
        }
    }

    private final Object writeLock = new Object();
    private final Object ackLock = new Object();
    private final AtomicLong pingIds = new AtomicLong();
    private Socket socket;
    private Writer out;
    private Reader reader;
    private StanzaReader in;
    private Jid bound;
    private boolean sm;
    private volatile long handled;
    private long sent;
    private long acked;
    private volatile boolean closed;
    private volatile long lastReceived = System.nanoTime();
    private volatile boolean busy;
    /** Why the keep-alive gave the connection up, or null. */
    private volatile String dead;

    private final SSLSocketFactory tlsFactory;

    private XmppConnection(SSLSocketFactory tlsFactory) {
        this.tlsFactory = tlsFactory;
    }

    /**
     * Connects and logs in as {@code account}; returns a connection ready for {@link #run}.
     *
     * @throws AuthRejected when the server refused the credentials
     * @throws IOException  when the server cannot be reached or the handshake fails
     */
    static XmppConnection open(XmppSettings settings, Jid account, XmppSettings.Timing timing) throws IOException {
        return open(settings, account, timing, (SSLSocketFactory) SSLSocketFactory.getDefault());
    }

    /** {@link #open(XmppSettings, Jid, XmppSettings.Timing)} trusting the certificates {@code tlsFactory} trusts. */
    static XmppConnection open(XmppSettings settings, Jid account, XmppSettings.Timing timing, SSLSocketFactory tlsFactory) throws IOException {
        XmppConnection c = new XmppConnection(tlsFactory);
        try {
            c.handshake(settings, account, timing);
            return c;
        } catch (IOException | RuntimeException e) {
            c.abort();
            throw e;
        }
    }

    /** The full JID the server bound. */
    Jid bound() {
        return bound;
    }

    /** True when stream management is on: sends are confirmed by the server's acks. */
    boolean streamManagement() {
        return sm;
    }

    private void handshake(XmppSettings settings, Jid account, XmppSettings.Timing timing) throws IOException {
        String host = settings.connectHost(account);
        int timeout = (int) timing.connectTimeout().toMillis();
        Socket raw = new Socket();
        socket = raw;
        raw.connect(new InetSocketAddress(host, settings.port()), timeout);
        raw.setSoTimeout(timeout);
        raw.setTcpNoDelay(true);
        if (settings.security() == XmppSettings.Security.TLS) {
            socket = tls(tlsFactory, raw, account.domain(), settings.port());
        }
        Element features = restart(account.domain());
        if (settings.security() == XmppSettings.Security.STARTTLS) {
            if (features.child("starttls", TLS_NS).isEmpty()) {
                throw new IOException("the server offers no STARTTLS, and security is starttls (use tls for direct TLS)");
            }
            write("<starttls xmlns='" + TLS_NS + "'/>");
            Element answer = expect("STARTTLS");
            if (!answer.is("proceed", TLS_NS)) {
                throw new IOException("the server refused STARTTLS (" + answer.name() + ")");
            }
            socket = tls(tlsFactory, socket, account.domain(), settings.port());
            features = restart(account.domain());
        }
        login(features, settings, account);
        features = restart(account.domain());
        bind(features);
        if (features.child("sm", SM_NS).isPresent()) {
            write("<enable xmlns='" + SM_NS + "'/>");
            Element answer = expect("stream management");
            sm = answer.is("enabled", SM_NS);
        }
        socket.setSoTimeout(0);
    }

    private void login(Element features, XmppSettings settings, Jid account) throws IOException {
        List<String> offered = features.child("mechanisms", SASL_NS).map(m -> m.children("mechanism", SASL_NS).stream()
                .map(e -> e.text().strip()).toList()).orElse(List.of());
        boolean plainAllowed = socket instanceof SSLSocket || settings.security() == XmppSettings.Security.NONE;
        String mechanism = Sasl.choose(offered, plainAllowed);
        if (mechanism == null) {
            throw new AuthRejected("the server offers no login mechanism Herald speaks (offered: " + offered + "; Herald speaks "
                    + Sasl.PREFERENCE + ", PLAIN only over TLS)");
        }
        Sasl sasl = new Sasl(mechanism, account.local(), settings.passwordValue());
        write("<auth xmlns='" + SASL_NS + "' mechanism='" + mechanism + "'>" + sasl.initial() + "</auth>");
        while (true) {
            Element e = expect("login");
            if (e.is("challenge", SASL_NS)) {
                String response;
                try {
                    response = sasl.respond(e.text());
                } catch (IllegalStateException | IllegalArgumentException bad) {
                    throw new IOException("login with " + mechanism + " failed: " + bad.getMessage());
                }
                write("<response xmlns='" + SASL_NS + "'>" + response + "</response>");
            } else if (e.is("success", SASL_NS)) {
                if (!sasl.verify(e.text())) {
                    throw new IOException("the server's " + mechanism + " success did not prove it knows the password; not trusted");
                }
                return;
            } else if (e.is("failure", SASL_NS)) {
                String condition = e.children().isEmpty() ? "unknown" : e.children().getFirst().name();
                throw new AuthRejected("the server refused the login with " + mechanism + " (" + condition + ")");
            } else {
                throw new IOException("unexpected <" + e.name() + "> during the login");
            }
        }
    }

    private void bind(Element features) throws IOException {
        if (features.child("bind", BIND_NS).isEmpty()) {
            throw new IOException("the server offers no resource binding");
        }
        write("<iq type='set' id='bind-1'><bind xmlns='" + BIND_NS + "'><resource>" + XmppSettings.RESOURCE + "</resource></bind></iq>");
        Element result = expect("resource binding");
        String jid = result.child("bind", BIND_NS).flatMap(b -> b.child("jid", BIND_NS)).map(Element::text).orElse("");
        bound = Jid.parse(jid.strip());
        if (!"result".equals(result.attr("type")) || bound == null) {
            throw new IOException("resource binding failed (" + result.attr("type") + ")");
        }
        boolean sessionRequired = features.child("session", SESSION_NS).map(s -> s.child("optional", SESSION_NS).isEmpty()).orElse(false);
        if (sessionRequired) {
            write("<iq type='set' id='session-1'><session xmlns='" + SESSION_NS + "'/></iq>");
            Element answer = expect("session");
            if (!"result".equals(answer.attr("type"))) {
                throw new IOException("the server refused the session (" + answer.attr("type") + ")");
            }
        }
    }

    /** Opens a (new) stream on the current socket and returns its features. */
    private Element restart(String domain) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        reader = new InputStreamReader(socket.getInputStream(), decoder);
        synchronized (writeLock) {
            out = new BufferedWriter(new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8));
        }
        write("<?xml version='1.0'?><stream:stream to='" + Xml.attr(domain) + "' version='1.0' xml:lang='en' xmlns='" + CLIENT_NS
                + "' xmlns:stream='" + StanzaReader.STREAM_NS + "'>");
        in = new StanzaReader(reader, MAX_STANZA_CHARS);
        in.openStream();
        Element features = expect("stream features");
        if (!features.is("features", StanzaReader.STREAM_NS)) {
            throw new IOException("the server sent <" + features.name() + "> instead of its stream features");
        }
        return features;
    }

    /** The next top-level element during the handshake. */
    private Element expect(String step) throws IOException {
        StanzaReader.Item item = in.next();
        if (item instanceof StanzaReader.Stanza s) {
            if (s.element().is("error", StanzaReader.STREAM_NS)) {
                throw new IOException("the server ended the stream during " + step + " (" + condition(s.element()) + ")");
            }
            return s.element();
        }
        throw new IOException(item instanceof StanzaReader.End ? "the server closed the stream during " + step
                : "the server sent an oversized element during " + step);
    }

    /**
     * Reads the stream until it ends, handing each stanza to {@code handler}, answering the server's ack requests and
     * pings; returns why it ended. Every {@code pingInterval} without anything received a ping is sent; with no answer
     * for as long again (while the handler is not busy) the connection is declared dead.
     */
    String run(Handler handler, Duration pingInterval, java.util.function.Consumer<String> skipped) throws IOException, InterruptedException {
        Thread keepAlive = Thread.ofVirtual().name("xmpp-keepalive").start(() -> keepAlive(pingInterval));
        try {
            while (!closed) {
                StanzaReader.Item item;
                try {
                    item = in.next();
                } catch (IOException e) {
                    if (dead != null) {
                        throw new IOException(dead, e);
                    }
                    throw e;
                }
                lastReceived = System.nanoTime();
                switch (item) {
                    case StanzaReader.End end -> {
                        return "the server closed the stream";
                    }
                    case StanzaReader.Oversized big -> {
                        skipped.accept("a <" + big.name() + "> of " + big.chars() + " characters (over the limit of " + MAX_STANZA_CHARS + ")");
                        if (isStanza(big.name())) {
                            handled++;
                        }
                    }
                    case StanzaReader.Stanza s -> {
                        Element e = s.element();
                        if (e.is("r", SM_NS)) {
                            write("<a xmlns='" + SM_NS + "' h='" + (handled & 0xFFFFFFFFL) + "'/>");
                        } else if (e.is("a", SM_NS)) {
                            acked(e.attr("h"));
                        } else if (e.is("error", StanzaReader.STREAM_NS)) {
                            return "the server ended the stream (" + condition(e) + ")";
                        } else if (isStanza(e.name()) && e.namespace().equals(CLIENT_NS)) {
                            busy = true;
                            boolean done;
                            try {
                                done = handler.stanza(e);
                            } finally {
                                busy = false;
                                lastReceived = System.nanoTime();
                            }
                            if (!done) {
                                abort();
                                return "a message was left unacknowledged for the server to deliver again";
                            }
                            handled++;
                        }
                    }
                }
            }
            return "closed";
        } finally {
            keepAlive.interrupt();
        }
    }

    private void keepAlive(Duration interval) {
        long limit = interval.toNanos();
        try {
            while (!closed) {
                Thread.sleep(Math.max(20, interval.toMillis() / 2));
                long idle = System.nanoTime() - lastReceived;
                if (busy || idle < limit) {
                    continue;
                }
                if (idle > 2 * limit) {
                    dead = "nothing arrived for " + idle / 1_000_000 + " ms, not even the answer to a ping";
                    abort(); // the reader sees the socket close and the loop reconnects
                    return;
                }
                send("<iq type='get' id='ping-" + pingIds.incrementAndGet() + "'><ping xmlns='urn:xmpp:ping'/></iq>");
            }
        } catch (InterruptedException | IOException e) {
            // the connection ended
        }
    }

    /** Writes one stanza (counted for stream management); returns its position in the count. */
    long send(String stanza) throws IOException {
        synchronized (writeLock) {
            write(stanza);
            return ++sent;
        }
    }

    /**
     * Writes one stanza and, with stream management, waits at most {@code timeout} for the server to acknowledge it.
     * Without stream management, true once it was written.
     */
    boolean sendConfirmed(String stanza, Duration timeout) throws IOException, InterruptedException {
        long n;
        synchronized (writeLock) {
            n = send(stanza);
            if (sm) {
                write("<r xmlns='" + SM_NS + "'/>");
            }
        }
        if (!sm) {
            return true;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (ackLock) {
            while (acked < n && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                ackLock.wait(Math.max(1, left / 1_000_000));
            }
            return acked >= n;
        }
    }

    private void acked(String h) {
        try {
            long value = Long.parseLong(h);
            synchronized (ackLock) {
                // h counts modulo 2^32; a value behind the last one is a wrap
                long low = acked & 0xFFFFFFFFL;
                long next = (acked & ~0xFFFFFFFFL) | value;
                if (value < low) {
                    next += 1L << 32;
                }
                acked = next;
                ackLock.notifyAll();
            }
        } catch (NumberFormatException | NullPointerException e) {
            // an <a/> without a number acknowledges nothing
        }
    }

    /** Writes raw XML (not counted) and flushes. */
    void write(String xml) throws IOException {
        synchronized (writeLock) {
            if (closed) {
                throw new IOException("the connection is closed");
            }
            out.write(xml);
            out.flush();
        }
    }

    private static boolean isStanza(String name) {
        return name.equals("message") || name.equals("presence") || name.equals("iq");
    }

    private static String condition(Element streamError) {
        return streamError.children().stream().filter(c -> c.namespace().equals(STREAMS_ERROR_NS)).map(Element::name)
                .filter(n -> !n.equals("text")).findFirst().orElse("unknown condition");
    }

    private static Socket tls(SSLSocketFactory factory, Socket plain, String domain, int port) throws IOException {
        SSLSocket s = (SSLSocket) factory.createSocket(plain, domain, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS"); // the certificate must name the XMPP domain (RFC 6120, 13.7.2)
        try {
            p.setServerNames(List.of(new SNIHostName(domain)));
        } catch (IllegalArgumentException e) {
            // a domain that is not a valid SNI name (an IP literal): no SNI
        }
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    /** Acknowledges what was handled, ends the stream and closes the socket. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            synchronized (writeLock) {
                if (sm) {
                    out.write("<a xmlns='" + SM_NS + "' h='" + (handled & 0xFFFFFFFFL) + "'/>");
                }
                out.write("</stream:stream>");
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // the socket is gone already
        }
        abort();
    }

    /** Closes the socket without ending the stream (what is not acknowledged stays with the server). */
    void abort() {
        closed = true;
        synchronized (ackLock) {
            ackLock.notifyAll();
        }
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException e) {
            // closing
        }
    }
}
