package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile or broken XML from the server: the stanza reader refuses DTDs (billion laughs), external entities and XML
 * that is not well formed with its own error and never expands an entity; normalisation never throws and makes only
 * well-formed events; and the running adapter, fed such bytes in the middle of its real Prosody stream through a relay,
 * drops the connection, connects again and answers the next message.
 */
@Tag("fuzz")
class XmppFuzzTest {
    static final String HEADER = "<?xml version='1.0'?><stream:stream from='localhost' id='s1' version='1.0' xmlns='jabber:client' "
            + "xmlns:stream='http://etherx.jabber.org/streams'>";
    static final String BILLION_LAUGHS = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">]>
            <message from='alice@localhost/x' type='chat'><body>&lol9;</body></message>""";
    static final String XXE = """
            <!DOCTYPE m [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><message from='alice@localhost/x' type='chat'><body>&xxe;</body></message>""";
    static final List<String> CORPUS = List.of(
            "<message from='alice@localhost/phone' to='herald@localhost' type='chat' id='m1'><body>hi there</body></message>",
            "<message from='lobby@conference.localhost/alice' type='groupchat' id='g1'><body>herald: what is 2+2?</body>"
                    + "<stanza-id xmlns='urn:xmpp:sid:0' id='sid-1' by='lobby@conference.localhost'/></message>",
            "<message from='alice@localhost/x' type='chat'><body/><origin-id xmlns='urn:xmpp:sid:0' id='o1'/></message>",
            "<presence from='lobby@conference.localhost/alice'><x xmlns='http://jabber.org/protocol/muc#user'>"
                    + "<item jid='alice@localhost/phone' affiliation='none' role='participant'/></x></presence>",
            "<iq from='localhost' type='get' id='p1'><ping xmlns='urn:xmpp:ping'/></iq>",
            "<r xmlns='urn:xmpp:sm:3'/><a xmlns='urn:xmpp:sm:3' h='7'/>",
            "<message from='lobby@conference.localhost/bob' type='groupchat'><body>@herald hello &amp; &lt;b&gt; <![CDATA[x<y]]></body>"
                    + "<delay xmlns='urn:xmpp:delay' stamp='2026-01-01T00:00:00Z'/></message>",
            BILLION_LAUGHS,
            XXE);

    static Prosody prosody;
    static InjectingProxy proxy;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, proxy.port(), List.of(XmppTest.ROOM)), XmppTest.ALICE);
    XmppUser alice;

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
        proxy = new InjectingProxy(prosody.port);
    }

    @AfterAll
    static void stopServer() throws Exception {
        proxy.close();
        prosody.close();
    }

    @BeforeEach
    void setUp() throws Exception {
        alice = XmppUser.login(prosody, "alice", "alice-pw");
    }

    @AfterEach
    void tearDown() {
        alice.close();
    }

    /** Every element of {@code stream} (a stream header is put in front), then the normalised messages checked. */
    private static void readAll(String input, XmppMessages messages) throws IOException {
        StanzaReader reader = new StanzaReader(new StringReader(HEADER + input), 64 * 1024);
        reader.openStream();
        for (int i = 0; i < 1000; i++) {
            StanzaReader.Item item = reader.next();
            if (item instanceof StanzaReader.End) {
                return;
            }
            if (item instanceof StanzaReader.Stanza s && s.element().name().equals("message")) {
                messages.normalise(s.element()).ifPresent(XmppFuzzTest::wellFormed);
            }
        }
    }

    private static XmppMessages messages() {
        Rooms rooms = new Rooms(Set.of(XmppTest.ROOM), "herald");
        rooms.occupant(XmppTest.ROOM, "alice", XmppTest.ALICE, true);
        return new XmppMessages(XmppAdapter.PLATFORM, Jid.parse(XmppTest.BOT), rooms, true, false, Clock.systemUTC());
    }

    @Test
    void theStanzaReaderAndNormalisation_neverThrowAnythingButTheReadersOwnError() {
        XmppMessages messages = messages();
        Fuzzer.of("xmpp stanza", CORPUS, 4_000).run(input -> readAll(input, messages), t -> t instanceof StanzaReader.Restricted);
    }

    @Test
    void aBillionLaughsDoctype_isRefusedBeforeAnyEntityIsExpanded() {
        StanzaReader atStart = readerOf(BILLION_LAUGHS.replace("<message", HEADER.substring(HEADER.indexOf("<stream")) + "<message"));
        assertThatThrownBy(atStart::openStream).isInstanceOf(StanzaReader.Restricted.class).hasMessageContaining("DOCTYPE");

        assertThatThrownBy(() -> readAll(BILLION_LAUGHS.substring(BILLION_LAUGHS.indexOf("<!DOCTYPE")), messages()))
                .isInstanceOf(StanzaReader.Restricted.class);
    }

    @Test
    void anExternalEntity_isNeverRead() {
        assertThatThrownBy(() -> readAll(XXE, messages())).isInstanceOf(StanzaReader.Restricted.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("root:"));
        assertThatThrownBy(() -> readAll("<message from='alice@localhost/x' type='chat'><body>&xxe;</body></message>", messages()))
                .as("an entity no DTD declared").isInstanceOf(StanzaReader.Restricted.class);
    }

    @Test
    void anOversizedStanza_isSkipped_andTheNextOneIsRead() throws IOException {
        StanzaReader reader = readerOf(HEADER + "<message><body>" + "x".repeat(200_000) + "</body></message><iq type='get' id='after'/>");
        reader.openStream();
        assertThat(reader.next()).isInstanceOf(StanzaReader.Oversized.class);
        assertThat(reader.next()).isInstanceOfSatisfying(StanzaReader.Stanza.class, s -> assertThat(s.element().attr("id")).isEqualTo("after"));
    }

    @Test
    void aBillionLaughsOrBrokenUtf8FromTheServer_dropsTheConnection_andTheAdapterReconnectsAndAnswers() throws Exception {
        herald.start();
        int before = proxy.connections();

        proxy.inject(BILLION_LAUGHS.getBytes(StandardCharsets.UTF_8));
        await().atMost(WAIT).until(() -> proxy.connections() > before && ((XmppAdapter) herald.current).ready());
        int again = proxy.connections();
        proxy.inject(new byte[] {'<', 'm', (byte) 0xC3, (byte) 0x28, '/', '>'});
        await().atMost(WAIT).until(() -> proxy.connections() > again && ((XmppAdapter) herald.current).ready());

        alice.say(XmppTest.BOT, "still there?");
        await().atMost(WAIT).until(() -> alice.bodiesFrom(XmppTest.BOT).contains("echo: still there?"));
    }

    @Test
    void aStreamOfMalformedStanzasOverTheWire_neverStopsTheAdapter_andTheNextMessageIsAnswered() throws Exception {
        herald.start();
        Fuzzer.wire("xmpp wire", CORPUS, 25).run(input -> {
            // each input goes to a live connection: after one that broke the stream, the adapter connects again first
            await().atMost(WAIT).until(() -> ((XmppAdapter) herald.current).ready());
            try {
                proxy.inject(input.getBytes(StandardCharsets.UTF_8));
            } catch (IOException reconnecting) {
                // the last input ended the connection and the adapter is connecting again: this one is dropped
            }
        }, t -> false);

        await().atMost(WAIT).until(() -> ((XmppAdapter) herald.current).ready());
        alice.say(XmppTest.BOT, "survived?");
        await().atMost(WAIT.multipliedBy(2)).until(() -> alice.bodiesFrom(XmppTest.BOT).contains("echo: survived?"));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(XmppTest.ALICE));
    }

    private static StanzaReader readerOf(String text) {
        try {
            return new StanzaReader(new StringReader(text), 64 * 1024);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text()).as("an event carries text").isNotBlank();
    }
}
