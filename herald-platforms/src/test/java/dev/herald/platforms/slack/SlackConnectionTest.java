package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Socket Mode lifecycle: Slack's disconnect requests, dropped links, rejected tokens. */
class SlackConnectionTest {
    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1");

    @Test
    void aDisconnectRequest_opensANewConnectionWithAFreshTicket_beforeClosingTheOldOne() {
        herald.start();

        slack.disconnect("refresh_requested");

        await().atMost(WAIT).until(() -> slack.tickets.size() == 2 && slack.openConnections() == 1);
        slack.deliver(slack.message("D1", "im", "U1", "1712000101.000100", null, "on the new connection"));
        await().atMost(WAIT).until(() -> slack.postsIn("D1", null).size() == 1);
        assertThat(herald.gateway.status().platforms().get(SlackAdapter.PLATFORM).state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void aDroppedConnection_isReopenedAfterABackoff() {
        herald.start();

        slack.dropCurrent();

        await().atMost(WAIT).until(() -> slack.tickets.size() == 2 && slack.connected());
        slack.deliver(slack.message("D1", "im", "U1", "1712000102.000100", null, "back again"));
        await().atMost(WAIT).until(() -> slack.postsIn("D1", null).size() == 1);
    }

    @Test
    void aRejectedAppToken_failsStartNamingTheKey_andNeverTheToken() {
        String wrong = "xapp-1-wrong-token-9";
        SlackSettings s = slack.settings();
        SlackAdapter adapter = new SlackAdapter(s.withTokens(wrong, s.botTokenValue()), FakeSlack.timing(), herald.clock);
        RecordingSink sink = new RecordingSink();

        assertThatThrownBy(() -> adapter.start(sink))
                .hasMessageStartingWith("slack - the app-level token was rejected by apps.connections.open (invalid_auth); check platforms.slack.app_token")
                .message().doesNotContain(wrong);
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
    }

    @Test
    void aRejectedBotToken_failsStartNamingTheKey() {
        SlackSettings s = slack.settings();
        SlackAdapter adapter = new SlackAdapter(s.withTokens(s.appTokenValue(), "xoxb-wrong"), FakeSlack.timing(),
                herald.clock);

        assertThatThrownBy(() -> adapter.start(new RecordingSink()))
                .hasMessage("slack - the bot token was rejected by auth.test (invalid_auth); check platforms.slack.bot_token");
        assertThat(slack.tickets).as("no socket is opened with a bad bot token").isEmpty();
    }

    @Test
    void socketModeSwitchedOff_stopsTheAdapterWithAnOperatorMessage() {
        herald.start();

        slack.disconnect("link_disabled");

        await().atMost(WAIT).until(() -> herald.gateway.status().platforms().get(SlackAdapter.PLATFORM).state() == ConnectionState.STOPPED);
        assertThat(herald.gateway.status().platforms().get(SlackAdapter.PLATFORM).detail()).contains("enable it under Settings > Socket Mode");
        assertThat(slack.tickets).hasSize(1);
    }
}
