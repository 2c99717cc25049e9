package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import dev.herald.platforms.telegram.FakeBotApi.Call;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Telegram adapter against a local fake of the Bot API, for what the emulator cannot show: offsets
 * that really acknowledge (a restart reads unconfirmed updates again), 429 with retry_after, failing
 * polls and reconnection, a rejected token, and streamed replies through editMessageText.
 */
class TelegramFakeServerTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    private boolean streaming;
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(settings(TOKEN), timing(), clock)).allow(Long.toString(USER))
            .withPairing().closing(fake);

    private TelegramSettings settings(String token) {
        return TelegramSettings.of(fake.apiBase(), token, streaming).withRequireMention(false);
    }

    private static TelegramSettings.Timing timing() {
        return new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                Duration.ofMillis(300));
    }

    @Test
    void updateNotConfirmedBeforeARestart_isReadAgain_andAnsweredOnce() throws Exception {
        h.start();
        ObjectNode update = fake.userSays(USER, "first");
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);
        h.stop(StopKind.SHUTDOWN);

        fake.redeliver(update);
        h.restart();
        fake.userSays(USER, "second");

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 2);
        Thread.sleep(500);
        assertThat(fake.calls("sendMessage")).extracting(c -> c.body().path("text").asText())
                .containsExactly("echo: first", "echo: second");
        assertThat(h.agent.messages()).containsExactly("second");
    }

    @Test
    void sameMessageUnderANewUpdateId_isAnsweredOnce() throws Exception {
        h.start();
        ObjectNode update = fake.userSays(USER, "only once");
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);

        fake.resendAsNewUpdate(update);
        fake.userSays(USER, "next");

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 2);
        Thread.sleep(300);
        assertThat(h.agent.messages()).containsExactly("only once", "next");
    }

    @Test
    void formattedReplyRefusedByTelegram_isSentAgainAsPlainText_once() throws Exception {
        h.start().agent.reply("**Done**: see `out.txt`");
        fake.failNext("sendMessage", 400);

        fake.userSays(USER, "format this");

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 2);
        Thread.sleep(300);
        List<Call> sends = fake.calls("sendMessage");
        assertThat(sends).hasSize(2);
        assertThat(sends.get(0).body().path("parse_mode").asText()).isEqualTo("HTML");
        assertThat(sends.get(0).body().path("text").asText()).isEqualTo("<b>Done</b>: see <code>out.txt</code>");
        assertThat(sends.get(1).body().has("parse_mode")).isFalse();
        assertThat(sends.get(1).body().path("text").asText()).isEqualTo("Done: see out.txt");
    }

    @Test
    void rateLimitedSend_waitsForRetryAfter_thenDeliversOnce() throws Exception {
        h.start();
        fake.failNext("sendMessage", 429);

        fake.userSays(USER, "hello");

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 2);
        List<Call> sends = fake.calls("sendMessage");
        assertThat(Duration.ofNanos(sends.get(1).atNanos() - sends.get(0).atNanos())).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        Thread.sleep(300);
        assertThat(fake.calls("sendMessage")).hasSize(2);
    }

    @Test
    void failingPolls_reportBackingOff_thenConnectedAgain_andMessagesFlow() throws Exception {
        h.start();
        Platform tg = TelegramAdapter.PLATFORM;
        fake.failPolls(true);

        await().atMost(WAIT).until(() -> h.gateway.platforms().connection(tg).state() == ConnectionState.BACKING_OFF);
        assertThat(h.gateway.platforms().connection(tg).detail()).contains("getUpdates HTTP 502").doesNotContain(TOKEN);
        fake.failPolls(false);
        await().atMost(WAIT).until(() -> h.gateway.platforms().connection(tg).state() == ConnectionState.CONNECTED);

        fake.userSays(USER, "still there?");
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);
    }

    @Test
    void rejectedToken_failsStartNamingTheKey_andNeverShowsTheToken() throws Exception {
        String wrong = "4242:wrong-secret";
        TelegramAdapter adapter = new TelegramAdapter(settings(wrong), timing(), Clock.systemUTC());

        assertThatThrownBy(() -> adapter.start(new RecordingSink()))
                .hasMessage("telegram - the bot token was rejected (HTTP 401); check platforms.telegram.token")
                .hasNoCause();
        adapter.close();
    }

    @Test
    void unreachableApi_sendIsRetryable_andNamesNoUrl() {
        TelegramAdapter adapter = new TelegramAdapter(TelegramSettings.of("http://127.0.0.1:9", TOKEN, false), Clock.systemUTC());

        var result = adapter.send(dev.herald.core.platform.OutboundMessage.notice(dev.herald.core.platform.ChatTarget.of("5"), "hi"));

        assertThat(result.success()).isFalse();
        assertThat(result.retryable()).isTrue();
        assertThat(result.error()).startsWith("sendMessage: ").doesNotContain(TOKEN).doesNotContain("127.0.0.1");
    }

    @Test
    void streamedReply_editsOneMessage_andTheFinalTextReplacesTheDraft() throws Exception {
        streaming = true;
        streamingAgent(h);
        h.start();

        fake.userSays(USER, "tell me a story");

        await().atMost(WAIT).until(() -> fake.calls("editMessageText").stream()
                .anyMatch(c -> c.body().path("text").asText().equals("Once upon a time, the end.")));
        Thread.sleep(300);
        assertThat(fake.calls("sendMessage")).hasSize(1);
        assertThat(fake.calls("sendMessage").get(0).body().path("text").asText()).endsWith("\u2589");
    }

    @Test
    void typing_isShownInTheTopicWhileTheTurnRuns() throws Exception {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("done");
        fake.userSays(USER, "slow", m -> {
            m.withObject("chat").put("type", "supergroup").put("id", -100);
            m.put("message_thread_id", 9).put("is_topic_message", true);
        });

        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> !fake.calls("sendChatAction").isEmpty());
        hold.release();

        Call typing = fake.calls("sendChatAction").get(0);
        assertThat(typing.body().path("action").asText()).isEqualTo("typing");
        assertThat(typing.body().path("message_thread_id").asLong()).isEqualTo(9);
        await().atMost(WAIT).until(() -> fake.calls("sendMessage").size() == 1);
        assertThat(fake.calls("sendMessage").get(0).body().path("message_thread_id").asLong()).isEqualTo(9);
    }

    /** Replaces the fixture's agent with one that streams its reply in three pieces before answering. */
    private static void streamingAgent(GatewayFixture herald) {
        herald.agentOverride(new Agent() {
            @Override
            public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
                for (String piece : List.of("Once ", "upon a time, ", "the end.")) {
                    listener.onDelta(piece);
                    sleep(120);
                }
                return new TurnOutcome.Final("Once upon a time, the end.");
            }

            @Override
            public String describe() {
                return "streaming test agent";
            }
        });
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
