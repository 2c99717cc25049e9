package dev.herald.platforms.irc;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server goes away (killed) and comes back: the adapter reconnects after its backoff, rejoins, and answers again. */
class IrcReconnectTest {
    Ngircd server;
    final IrcServerTests.Names n = IrcServerTests.Names.next();
    @RegisterExtension
    final GatewayFixture herald = new GatewayFixture(clock -> IrcServerTests.adapter(server, n, s -> s, clock)).allow(n.alice());

    @BeforeEach
    void startServer() throws Exception {
        server = Ngircd.start();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    @Test
    void theServerKilledAndRestarted_theAdapterReconnectsAndRejoins_andAnswersTheNextMessage() throws Exception {
        herald.start();
        IrcUser before = IrcServerTests.user(herald, server, n.alice()).join(n.channel());
        before.say(n.channel(), n.bot() + ": one");
        await().atMost(WAIT).until(() -> before.messages(n.bot(), n.channel()).size() == 1);

        server.kill();
        server.restart();
        IrcUser alice = IrcServerTests.user(herald, server, n.alice()).join(n.channel());
        alice.await(r -> (r.command().equals("JOIN") && n.bot().equals(r.from()))
                || (r.command().equals("353") && java.util.List.of(r.message().split(" ")).stream().anyMatch(m -> m.replaceFirst("^[~&@%+]", "").equals(n.bot()))));
        alice.say(n.channel(), n.bot() + ": two");

        await().atMost(WAIT).until(() -> alice.messages(n.bot(), n.channel()).size() == 1);
        assertThat(alice.messages(n.bot(), n.channel())).containsExactly(n.alice() + ": echo: two");
        assertThat(herald.agent.messages()).containsExactly("one", "two");
    }
}
