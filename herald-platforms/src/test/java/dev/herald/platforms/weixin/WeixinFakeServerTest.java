package dev.herald.platforms.weixin;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The Weixin adapter, its real HTTP client and the real gateway against a local fake of the iLink bot API. */
class WeixinFakeServerTest {
    private static final String TOKEN = "ilink-secret-token";
    private static final String USER = "wxid_alice@im.wechat";

    /** Where the adapter keeps its cursor and context tokens. */
    @TempDir
    Path dir;

    private final FakeILink fake = new FakeILink(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> adapter(TOKEN, clock)).allow(USER).withPairing().closing(fake);

    private WeixinSettings settings(String token) {
        return fake.settings(token);
    }

    private WeixinAdapter adapter(String token, Clock clock) {
        return new WeixinAdapter(settings(token), new WeixinSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20),
                Duration.ofMillis(50), Duration.ofMillis(300)), dir.resolve("weixin/state.json"), clock);
    }

    @Test
    void roundTrip_repliesEchoTheChatsLatestContextToken() throws Exception {
        h.start().agent.reply("first answer").reply("second answer");

        fake.userSays(USER, "hello", "ctx-1");
        await().atMost(WAIT).until(() -> fake.sent().size() == 1);
        fake.userSays(USER, "again", "ctx-2");
        await().atMost(WAIT).until(() -> fake.sent().size() == 2);

        JsonNode first = fake.sent().get(0);
        assertThat(first.path("to_user_id").asText()).isEqualTo(USER);
        assertThat(first.path("context_token").asText()).isEqualTo("ctx-1");
        assertThat(first.path("message_type").asInt()).isEqualTo(2);
        assertThat(first.path("item_list").get(0).path("text_item").path("text").asText()).isEqualTo("first answer");
        assertThat(fake.sent().get(1).path("context_token").asText()).isEqualTo("ctx-2");
        assertThat(h.agent.messages()).containsExactly("hello", "again");
    }

    @Test
    void cursor_isPersisted_andARestartContinuesFromIt() throws Exception {
        h.start();
        fake.userSays(USER, "one", "ctx-1");
        await().atMost(WAIT).until(() -> fake.sent().size() == 1);
        await().atMost(WAIT).until(() -> fake.cursorsAsked().contains("c1"));
        h.stop(StopKind.SHUTDOWN);
        assertThat(Files.readString(dir.resolve("weixin/state.json"))).contains("\"cursor\" : \"c1\"");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("weixin/state.json")))).isEqualTo("rw-------");

        int asked = fake.cursorsAsked().size();
        h.restart();
        fake.userSays(USER, "two", "ctx-2");

        await().atMost(WAIT).until(() -> fake.sent().size() == 2);
        assertThat(fake.cursorsAsked().get(asked)).isEqualTo("c1");
        assertThat(h.agent.messages()).containsExactly("two");
    }

    @Test
    void messageDeliveredTwice_isAnsweredOnce() throws Exception {
        h.start();
        ObjectNode m = fake.userSays(USER, "only once", "ctx-1");
        await().atMost(WAIT).until(() -> fake.sent().size() == 1);

        fake.deliverAgain(m);
        fake.userSays(USER, "next", "ctx-1");

        await().atMost(WAIT).until(() -> fake.sent().size() == 2);
        Thread.sleep(300);
        assertThat(fake.sent()).hasSize(2);
        assertThat(h.agent.messages()).containsExactly("only once", "next");
    }

    @Test
    void failingPolls_reportBackingOff_thenConnectedAgain() throws Exception {
        h.start();
        Platform wx = WeixinAdapter.PLATFORM;
        fake.failPolls(true);

        await().atMost(WAIT).until(() -> h.gateway.platforms().connection(wx).state() == ConnectionState.BACKING_OFF);
        assertThat(h.gateway.platforms().connection(wx).detail()).contains("getupdates HTTP 500").doesNotContain(TOKEN);
        fake.failPolls(false);
        await().atMost(WAIT).until(() -> h.gateway.platforms().connection(wx).state() == ConnectionState.CONNECTED);

        fake.userSays(USER, "back?", "ctx-9");
        await().atMost(WAIT).until(() -> fake.sent().size() == 1);
        assertThat(fake.sent().get(0).path("context_token").asText()).isEqualTo("ctx-9");
    }

    @Test
    void unknownUser_getsAPairingCodeAndNoTurn() throws Exception {
        h.start();

        fake.userSays("wxid_stranger", "hi", "ctx-s");

        await().atMost(WAIT).until(() -> fake.sent().size() == 1);
        JsonNode reply = fake.sent().get(0);
        assertThat(reply.path("to_user_id").asText()).isEqualTo("wxid_stranger");
        assertThat(reply.path("context_token").asText()).isEqualTo("ctx-s");
        assertThat(reply.path("item_list").get(0).path("text_item").path("text").asText()).contains("herald pairing approve weixin ");
        assertThat(h.agent.calls()).isEmpty();
        assertThat(h.turns(TurnState.RECEIVED)).isEmpty();
    }

    @Test
    void restartMidTurn_resumedReplyStillEchoesTheContextToken() throws Exception {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("cut off");
        fake.userSays(USER, "long job", "ctx-long");
        hold.awaitArrival(WAIT);

        h.stop(StopKind.RESTART);
        h.restart();

        await().atMost(WAIT).until(() -> fake.sent().size() == 2);
        Thread.sleep(300);
        assertThat(fake.sent()).hasSize(2);
        assertThat(fake.sent().get(0).path("item_list").get(0).path("text_item").path("text").asText())
                .isEqualTo(StopKind.RESTART.banner());
        assertThat(fake.sent().get(1).path("context_token").asText()).isEqualTo("ctx-long");
        assertThat(h.agent.calls()).hasSize(1);
    }

    @Test
    void rejectedToken_failsStartNamingTheKey() throws Exception {
        WeixinAdapter adapter = adapter("wrong-secret", Clock.systemUTC());

        assertThatThrownBy(() -> adapter.start(new RecordingSink()))
                .hasMessage("weixin - the bot token was rejected (HTTP 401); check platforms.weixin.token");
    }
}
