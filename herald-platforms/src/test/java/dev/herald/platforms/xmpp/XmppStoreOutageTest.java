package dev.herald.platforms.xmpp;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A message that arrives while the store cannot write is held and left unacknowledged (stream management): stored and
 * answered once when the store writes again, or, when Herald dies meanwhile, kept by the real Prosody and delivered at
 * the next login, then answered once.
 */
class XmppStoreOutageTest {
    static Prosody prosody;

    @RegisterExtension
    final GatewayFixture herald = XmppTest.herald(XmppTest.settings(prosody, prosody.port, List.of()), XmppTest.ALICE);
    XmppUser alice;

    @BeforeAll
    static void startServer() throws Exception {
        prosody = new Prosody().register("herald", XmppTest.BOT_PASSWORD).register("alice", "alice-pw").start();
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

    private XmppAdapter adapter() {
        return (XmppAdapter) herald.current;
    }

    @Test
    void aMessageWhileTheDiskIsFull_isHeld_andAnsweredOnceWhenTheStoreWritesAgain() {
        herald.start();
        herald.fillDisk();

        alice.say(XmppTest.BOT, "hello");
        await().atMost(WAIT).until(() -> adapter().holding());
        assertThat(herald.turns()).as("nothing stored").isEmpty();
        herald.freeDisk();

        await().atMost(WAIT).during(Duration.ofMillis(400)).until(() -> alice.bodiesFrom(XmppTest.BOT).size() == 1);
        assertThat(alice.bodiesFrom(XmppTest.BOT)).containsExactly("echo: hello");
        assertThat(herald.turns()).singleElement().satisfies(t -> assertThat(t.text()).isEqualTo("hello"));
    }

    @Test
    void aMessageHeldWhenHeraldDies_isKeptByTheServer_deliveredAtTheNextLogin_andAnsweredOnce() {
        herald.start();
        herald.fillDisk();
        alice.say(XmppTest.BOT, "do not lose me");
        await().atMost(WAIT).until(() -> adapter().holding());

        herald.crash();
        herald.start();

        await().atMost(WAIT).during(Duration.ofMillis(400)).until(() -> alice.bodiesFrom(XmppTest.BOT).size() == 1);
        assertThat(alice.bodiesFrom(XmppTest.BOT)).containsExactly("echo: do not lose me");
        assertThat(herald.agent.messages()).containsExactly("do not lose me");
    }
}
