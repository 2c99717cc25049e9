package dev.herald.platforms.irc;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * IRC lines from a hostile or broken peer: the line parser never throws but its own {@link IrcLine.Malformed}, what it
 * parses formats back to the same command and parameters, normalisation makes only well-formed events, and the running
 * adapter (against a real ngircd) survives a stream of mutated messages (broken UTF-8, CTCP, empty and odd text) from
 * an allowed and an unknown user, and still answers the next good message, having stored turns only for the allowed one.
 */
@Tag("fuzz")
class IrcFuzzTest {
    static final List<String> CORPUS = List.of(
            ":alice!~alice@127.0.0.1 PRIVMSG herald :hi there",
            ":alice!~alice@127.0.0.1 PRIVMSG #herald :herald: what is 2+2?",
            ":bob!b@host PRIVMSG #herald :herald, caf\u00e9 \ud83d\ude00",
            "@account=alice;msgid=abc123;time=2026-12-05T10:00:00.000Z :al!u@h PRIVMSG herald :tagged \\s text",
            "@a=b\\:c\\s\\\\;d :x!y@z PRIVMSG herald :\u0001ACTION waves\u0001",
            "PING :irc.herald.test",
            ":irc.herald.test 001 herald :Welcome to the Internet Relay Network herald!~herald@127.0.0.1",
            ":irc.herald.test CAP * LS * :multi-prefix sasl=PLAIN,EXTERNAL",
            ":irc.herald.test 433 * herald :Nickname already in use",
            ":x!y@z JOIN #herald alice :Alice",
            ":x!y@z PRIVMSG herald",
            ":irc.herald.test 353 herald = #herald :@herald alice bob");
    static final List<String> WIRE = List.of("hi there", "herald: what is 2+2?", "herald, caf\u00e9 \ud83d\ude00", "\u0001ACTION waves\u0001",
            "\u0001VERSION\u0001", "herald:", "  ", "herald: /help", "herald:/status extra", "\u00ff\u00fe broken");

    static Ngircd server;

    @BeforeAll
    static void startServer() throws Exception {
        server = Ngircd.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    final IrcServerTests.Names n = IrcServerTests.Names.next();
    @RegisterExtension
    final GatewayFixture herald = IrcServerTests.herald(server, n, s -> s).allow(n.alice()).withPairing();

    @Test
    void theLineParser_neverThrowsButItsOwnError_andWhatItParsesFormatsBack_andEventsAreWellFormed() {
        IrcMessages messages = new IrcMessages(IrcSettings.plain("127.0.0.1", 6667, "herald", List.of("#herald")), Clock.systemUTC());
        Fuzzer.of("irc line", CORPUS, 20_000).run(input -> {
            byte[] bytes = input.length() % 3 == 0 ? latin1(input) : input.getBytes(StandardCharsets.UTF_8);
            IrcLine line = IrcLine.parse(bytes, bytes.length);
            assertThat(line.command()).isNotEmpty();
            try {
                String formatted = IrcLine.format(line.command(), line.params().toArray(String[]::new));
                IrcLine again = IrcLine.parse(formatted, false);
                assertThat(again.command()).isEqualTo(line.command());
                assertThat(again.params()).isEqualTo(line.params());
            } catch (IllegalArgumentException refusedToFormat) {
                // a parameter that cannot be sent as it is (too long, a space in a middle one): format refuses, never mangles
            }
            if (line.command().equals("PRIVMSG")) {
                for (boolean accounts : new boolean[] {false, true}) {
                    messages.normalise(new IrcClient.Inbound(line, "herald", accounts, line.tags().get("account"))).event()
                            .ifPresent(IrcFuzzTest::wellFormed);
                }
            }
        }, t -> t instanceof IrcLine.Malformed);
    }

    @Test
    void adapter_survivesMutatedMessagesThroughARealServer_andAnswersTheNextGoodOne() throws Exception {
        herald.start();
        IrcUser alice = IrcServerTests.user(herald, server, n.alice()).join(n.channel());
        IrcUser mallory = IrcServerTests.user(herald, server, "mallory" + n.bot().substring(6)).join(n.channel());
        int[] i = {0};
        Fuzzer.wire("irc wire", WIRE, 150).run(input -> {
            int k = i[0]++;
            IrcUser from = k % 4 < 2 ? alice : mallory;
            String target = k % 2 == 0 ? n.bot() : n.channel();
            String text = input.replace('\r', ' ').replace('\n', ' ').replace('\0', ' ');
            byte[] body = k % 3 == 0 ? latin1(text) : text.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            line.writeBytes(("PRIVMSG " + target + " :").getBytes(StandardCharsets.UTF_8));
            line.write(body, 0, Math.min(body.length, 400));
            line.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
            from.rawBytes(line.toByteArray());
        }, t -> false);

        alice.say(n.bot(), "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> alice.messages(n.bot(), n.alice()).contains("echo: still there?"));
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(n.alice()));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotBlank();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text()).isNotBlank().doesNotContain("\ufffd");
        assertThat(IrcIds.wire(e.source().chatId())).as("the chat id names the nick or channel again").isNotBlank();
        if (e.source().threadId() != null) {
            assertThat(IrcIds.fold(IrcIds.wire(e.source().threadId()))).isEqualTo(e.source().threadId());
        }
        assertThat(Map.of("x", e.text())).isNotEmpty();
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
