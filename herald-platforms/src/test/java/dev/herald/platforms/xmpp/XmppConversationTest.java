package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The XMPP adapter in conversation with people on a real Prosody: one-to-one chats, a room, pairing, splitting, styling. */
class XmppConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(400);
    static Prosody prosody;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, prosody.port, List.of(XmppTest.ROOM)).withMaxMessageLength(200),
            XmppTest.ALICE).withPairing();
    XmppUser alice;

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").register("mallory", "mallory-pw").start();
    }

    @AfterAll
    static void stopServer() throws Exception {
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

    @Test
    void aOneToOneMessage_getsOneAnswer_composingFirst_withAnIdAndActiveState() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("hello back");

        alice.say(XmppTest.BOT, "hi there");
        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> alice.received.stream().anyMatch(XmppUser.Received::composing));
        hold.release();

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.BOT).size() == 1);
        XmppUser.Received answer = alice.messagesFrom(XmppTest.BOT).getFirst();
        assertThat(answer.body()).isEqualTo("hello back");
        assertThat(answer.type()).isEqualTo("chat");
        assertThat(answer.id()).startsWith("herald-");
        assertThat(answer.stanza().child("active", XmppAdapter.CHATSTATES_NS)).as("the answer ends the composing state").isPresent();
        assertThat(herald.agent.messages()).containsExactly("hi there");
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.sessionKey().value()).isEqualTo("agent:main:xmpp:dm:" + XmppTest.ALICE));
    }

    @Test
    void aRoomMessage_isAnsweredOnlyWhenItMentionsTheNick_andTheSessionIsPerUserInTheRoom() {
        herald.start();
        alice.join(XmppTest.ROOM, "alice");
        sleep(300); // alice's join reaches the room (and the bot learns her real JID) before she speaks

        alice.sayInRoom(XmppTest.ROOM, "just chatting with friends");
        alice.sayInRoom(XmppTest.ROOM, "herald: what is 2+2?");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.ROOM).stream().filter(b -> b.startsWith("echo")).count() == 1);
        assertThat(herald.agent.messages()).containsExactly("what is 2+2?");
        assertThat(alice.bodiesFrom(XmppTest.ROOM)).contains("echo: what is 2+2?");
        assertThat(herald.turns()).singleElement().satisfies(t ->
                assertThat(t.sessionKey().value()).isEqualTo("agent:main:xmpp:group:" + XmppTest.ROOM + ":" + XmppTest.ALICE));
    }

    @Test
    void anUnknownJid_getsAPairingCode_andNoTurn() throws Exception {
        herald.start();
        try (XmppUser mallory = XmppUser.login(prosody, "mallory", "mallory-pw")) {
            mallory.say(XmppTest.BOT, "let me in");

            await().atMost(WAIT).until(() -> mallory.bodiesFrom(XmppTest.BOT).size() == 1);
            assertThat(mallory.bodiesFrom(XmppTest.BOT).getFirst()).containsIgnoringCase("pairing");
        }
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void aLongAnswer_isSplitIntoMessagesWithinTheLimit_inOrder() {
        herald.start();
        String paragraph = "word ".repeat(30).strip();
        herald.agent.reply(paragraph + "\n\n" + paragraph + "\n\n" + paragraph);

        alice.say(XmppTest.BOT, "tell me a lot");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.BOT).size() >= 2);
        List<XmppUser.Received> parts = alice.messagesFrom(XmppTest.BOT);
        assertThat(parts).allSatisfy(p -> assertThat(p.body().length()).isLessThanOrEqualTo(200));
        assertThat(String.join(" ", parts.stream().map(XmppUser.Received::body).toList()).split("\\s+")).hasSize(90);
        assertThat(parts.stream().map(XmppUser.Received::id).distinct()).as("every part has its own id").hasSize(parts.size());
    }

    @Test
    void markdown_arrivesAsMessageStyling() {
        herald.start();
        herald.agent.reply("""
                # Plan
                This is **bold**, *italic* and ~~gone~~, with `code` and [a link](https://example.org/x).

                ```java
                int x = 1;
                ```""");

        alice.say(XmppTest.BOT, "style please");

        await().atMost(WAIT).until(() -> alice.bodiesFrom(XmppTest.BOT).size() == 1);
        assertThat(alice.bodiesFrom(XmppTest.BOT).getFirst()).isEqualTo("""
                *Plan*

                This is *bold*, _italic_ and ~gone~, with `code` and a link (https://example.org/x).

                ```java
                int x = 1;
                ```""");
    }

    @Test
    void anEmptyBody_isSkipped_andTheNextMessageIsAnswered() {
        herald.start();

        alice.raw("<message to='" + XmppTest.BOT + "' type='chat' id='empty-1'><body>   </body></message>");
        alice.raw("<message to='" + XmppTest.BOT + "' type='chat' id='state-1'><composing xmlns='" + XmppAdapter.CHATSTATES_NS + "'/></message>");
        alice.say(XmppTest.BOT, "are you there?");

        await().atMost(WAIT).during(SETTLE).until(() -> alice.bodiesFrom(XmppTest.BOT).size() == 1);
        assertThat(alice.bodiesFrom(XmppTest.BOT)).containsExactly("echo: are you there?");
        assertThat(herald.agent.messages()).containsExactly("are you there?");
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
