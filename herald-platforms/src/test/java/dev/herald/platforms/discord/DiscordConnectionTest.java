package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ConnectionState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Discord Gateway lifecycle: resume after drops, RECONNECT, zombied connections, invalid sessions, a bad token. */
class DiscordConnectionTest {
    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1");

    @Test
    void aDroppedConnection_isResumedWithTheSessionIdAndLastSequence_andTheMissedMessageIsAnswered() {
        herald.start();
        long lastSeen = discord.lastSeq();
        discord.lostInFlight("MESSAGE_CREATE", discord.messageJson("6001", "dm-1", null, "u1", "sent while the line was down"));

        discord.drop();

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.sent(6)).singleElement().satisfies(resume -> {
            assertThat(resume.path("d").path("session_id").asText()).isEqualTo("session-1");
            assertThat(resume.path("d").path("seq").asLong()).isEqualTo(lastSeen);
            assertThat(resume.path("d").path("token").asText()).isEqualTo(FakeDiscord.TOKEN);
        });
        assertThat(discord.connectedPaths).as("the resume goes to resume_gateway_url").containsExactly("/gateway", "/resume");
        assertThat(discord.sent(2)).as("no second IDENTIFY").hasSize(1);
        assertThat(herald.agent.messages()).containsExactly("sent while the line was down");
        assertThat(herald.gateway.status().platforms().get(DiscordAdapter.PLATFORM).state()).isEqualTo(ConnectionState.CONNECTED);
    }

    @Test
    void aReconnectRequest_closesAndResumes_withoutLosingTheSession() {
        herald.start();

        discord.requestReconnect();

        await().atMost(WAIT).until(() -> discord.sent(6).size() == 1 && discord.connected());
        discord.message("6101", "dm-1", null, "u1", "still there?");
        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.sent(2)).hasSize(1);
    }

    @Test
    void aResumeUrlThatRefusesConnections_isLeftForTheGatewayUrl_andTheSessionIsResumedThere() throws Exception {
        herald.start();
        int refusing;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            refusing = s.getLocalPort();
        }
        // the same session, but READY names a resume URL where nothing listens
        discord.raw("""
                {"op":0,"t":"READY","s":%d,"d":{"v":10,"session_id":"session-1","resume_gateway_url":"ws://127.0.0.1:%d/resume",
                 "user":{"id":"%s","username":"herald","bot":true},"guilds":[]}}""".formatted(discord.lastSeq(), refusing, FakeDiscord.BOT_ID));
        discord.lostInFlight("MESSAGE_CREATE", discord.messageJson("6051", "dm-1", null, "u1", "sent while the line was down"));

        discord.drop();

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.connectedPaths).as("the resume went to the gateway URL").containsExactly("/gateway", "/gateway");
        assertThat(discord.sent(6)).singleElement().satisfies(resume -> assertThat(resume.path("d").path("session_id").asText()).isEqualTo("session-1"));
        assertThat(discord.sent(2)).as("no second IDENTIFY").hasSize(1);
        assertThat(herald.agent.messages()).containsExactly("sent while the line was down");
    }

    @Test
    void aHeartbeatThatIsNeverAcknowledged_makesTheAdapterReconnectAndResume() {
        discord.heartbeatInterval = 100;
        herald.start();
        // the first beat is jittered and may come before READY, when there is no sequence yet (d is null)
        await().atMost(WAIT).until(() -> discord.sent(1).size() >= 2);
        assertThat(discord.sent(1)).allSatisfy(beat -> assertThat(beat.path("d").isNull() || beat.path("d").isIntegralNumber())
                .as("d is the last sequence or null, never absent: %s", beat).isTrue());
        await().atMost(WAIT).until(() -> discord.sent(1).getLast().path("d").asLong(-1) == discord.lastSeq());

        discord.ackHeartbeats = false;

        await().atMost(WAIT).until(() -> discord.sent(6).size() == 1);
        discord.ackHeartbeats = true;
        await().atMost(WAIT).until(discord::connected);
        discord.message("6201", "dm-1", null, "u1", "after the zombie");
        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
    }

    @Test
    void aSessionDiscordWillNotResume_isReplacedByAFreshIdentify() {
        herald.start();
        discord.invalidateNextResume = true;

        discord.drop();

        await().atMost(WAIT).until(() -> discord.sent(2).size() == 2 && discord.connected());
        assertThat(discord.sent(6)).as("it tried to resume first").hasSize(1);
        discord.message("6301", "dm-1", null, "u1", "new session, same chat");
        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
    }

    @Test
    void aRejectedToken_failsStartNamingTheKeyToCheck_andNeverTheToken() {
        String wrong = "not-the-right-token-Qq7";
        DiscordAdapter adapter = new DiscordAdapter(discord.settings(wrong), FakeDiscord.timing(), herald.clock);
        RecordingSink sink = new RecordingSink();

        assertThatThrownBy(() -> adapter.start(sink))
                .hasMessage("discord - the bot token was rejected (close 4004); check platforms.discord.token")
                .hasNoCause();
        assertThat(sink.states).last().isEqualTo(ConnectionState.STOPPED);
        assertThat(sink.details).noneMatch(d -> d.contains(wrong));
        assertThat(discord.sent(2)).as("it does not retry a rejected token").hasSize(1);
        adapter.close();
    }
}
