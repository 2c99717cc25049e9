package dev.herald.platforms.xmpp;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A person on the test server (alice, mallory): an XMPP client logged in to the real Prosody, which sends messages
 * and records every message stanza it receives. Built on the adapter's own connection class, which speaks to the real
 * server here exactly as it does for the bot.
 */
final class XmppUser implements AutoCloseable {
    /** One message the user received. */
    record Received(String from, String type, String id, String body, boolean composing, Element stanza) {
    }

    final String jid;
    final List<Received> received = new CopyOnWriteArrayList<>();
    private final XmppConnection connection;
    private final Thread reader;

    private XmppUser(String jid, XmppConnection connection) {
        this.jid = jid;
        this.connection = connection;
        this.reader = Thread.ofVirtual().name("xmpp-user-" + jid).start(() -> {
            try {
                connection.run(this::onStanza, Duration.ofSeconds(30), what -> { });
            } catch (Exception e) {
                // the test closed the user, or the server went away
            }
        });
    }

    /** Logs {@code user}@localhost in (plain connection to the test server) and sends initial presence. */
    static XmppUser login(Prosody server, String user, String password) throws Exception {
        XmppSettings s = XmppSettings.of(user + "@" + Prosody.DOMAIN, password).withServer("127.0.0.1", server.port, XmppSettings.Security.NONE);
        XmppConnection c = XmppConnection.open(s, s.account(), XmppTest.TIMING);
        c.send("<presence/>");
        return new XmppUser(user + "@" + Prosody.DOMAIN, c);
    }

    private final java.util.Map<String, java.util.concurrent.CompletableFuture<Element>> answers = new java.util.concurrent.ConcurrentHashMap<>();

    private boolean onStanza(Element e) {
        if (e.name().equals("iq") && e.attr("id") != null && answers.containsKey(e.attr("id"))) {
            answers.get(e.attr("id")).complete(e);
        } else if (e.name().equals("message")) {
            String body = e.child("body", XmppConnection.CLIENT_NS).map(Element::text).orElse(null);
            boolean composing = e.child("composing", XmppAdapter.CHATSTATES_NS).isPresent();
            received.add(new Received(e.attr("from"), e.attr("type"), e.attr("id"), body, composing, e));
        } else if (e.name().equals("presence") && e.attr("from") != null && e.attr("from").startsWith("hidden@")) {
            // a room this user created: accept the default configuration so others can join (XEP-0045 instant room)
            boolean created = e.children().stream().flatMap(x -> x.children().stream()).anyMatch(s -> "201".equals(s.attr("code")));
            if (created) {
                raw("<iq type='set' to='" + Jid.parse(e.attr("from")).bare() + "' id='unlock'><query xmlns='" + XmppAdapter.MUC_OWNER_NS
                        + "'><x xmlns='jabber:x:data' type='submit'/></query></iq>");
            }
        }
        return true;
    }

    /** Sends a one-to-one message; returns its id. */
    String say(String to, String text) {
        String id = "m-" + UUID.randomUUID();
        raw("<message to='" + Xml.attr(to) + "' type='chat' id='" + id + "'><body>" + Xml.text(text) + "</body></message>");
        return id;
    }

    /** Sends a message in {@code room}; returns its id. */
    String sayInRoom(String room, String text) {
        String id = "g-" + UUID.randomUUID();
        raw("<message to='" + Xml.attr(room) + "' type='groupchat' id='" + id + "'><body>" + Xml.text(text) + "</body></message>");
        return id;
    }

    /** Joins {@code room} as {@code nick}. */
    void join(String room, String nick) {
        raw("<presence to='" + Xml.attr(room + "/" + nick) + "'><x xmlns='" + XmppAdapter.MUC_NS + "'><history maxstanzas='0'/></x></presence>");
    }

    /**
     * Uploads {@code bytes} as {@code name} through the server's upload service (XEP-0363: a slot, then a PUT), as a
     * client does; returns the GET URL.
     */
    String upload(String name, byte[] bytes, String type) throws Exception {
        String id = "slot-" + UUID.randomUUID();
        var answer = new java.util.concurrent.CompletableFuture<Element>();
        answers.put(id, answer);
        raw("<iq type='get' id='" + id + "' to='" + Prosody.UPLOAD + "'><request xmlns='" + XmppFiles.UPLOAD_NS + "' filename='"
                + Xml.attr(name) + "' size='" + bytes.length + "' content-type='" + Xml.attr(type) + "'/></iq>");
        Element slot = answer.get(10, java.util.concurrent.TimeUnit.SECONDS).child("slot", XmppFiles.UPLOAD_NS).orElseThrow();
        String put = slot.child("put", XmppFiles.UPLOAD_NS).orElseThrow().attr("url");
        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(put)).header("Content-Type", type)
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofByteArray(bytes));
        for (Element h : slot.child("put", XmppFiles.UPLOAD_NS).orElseThrow().children("header", XmppFiles.UPLOAD_NS)) {
            request.header(h.attr("name"), h.text());
        }
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            int status = http.send(request.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status != 201 && status != 200) {
                throw new IllegalStateException("PUT answered " + status);
            }
        }
        return slot.child("get", XmppFiles.UPLOAD_NS).orElseThrow().attr("url");
    }

    /** Sends {@code url} as a file, the way Conversations does: the URL as the body and as out-of-band data. */
    String sendFile(String to, String url) {
        String id = "f-" + UUID.randomUUID();
        raw("<message to='" + Xml.attr(to) + "' type='chat' id='" + id + "'><body>" + Xml.text(url) + "</body><x xmlns='" + XmppFiles.OOB_NS
                + "'><url>" + Xml.text(url) + "</url></x></message>");
        return id;
    }

    /** Writes a stanza as it is. */
    void raw(String xml) {
        try {
            connection.send(xml);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The bodies of the messages with a body received from {@code fromBare} (a user or a room), in order. */
    List<String> bodiesFrom(String fromBare) {
        return messagesFrom(fromBare).stream().map(Received::body).toList();
    }

    List<Received> messagesFrom(String fromBare) {
        return received.stream().filter(r -> r.body() != null && r.from() != null && Jid.parse(r.from()) != null
                && Jid.parse(r.from()).bare().equals(fromBare)).toList();
    }

    @Override
    public void close() {
        connection.close();
        reader.interrupt();
    }
}
