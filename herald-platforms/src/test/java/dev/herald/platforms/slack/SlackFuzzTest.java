package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Socket Mode envelopes from a hostile or broken server: event normalisation never throws and makes only
 * well-formed events, and the running adapter survives a stream of malformed frames and still answers the next
 * good message, having stored turns only for allowed users.
 */
@Tag("fuzz")
class SlackFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> CORPUS = List.of(
            """
            {"envelope_id":"env-1","type":"events_api","accepts_response_payload":false,"retry_attempt":0,"retry_reason":"",
             "payload":{"type":"event_callback","event_id":"Ev1","event":{"type":"message","channel":"D1","channel_type":"im",
             "user":"U1","ts":"1712000001.000100","text":"hello &lt;there&gt;","event_ts":"1712000001.000100"}}}""",
            """
            {"envelope_id":"env-2","type":"events_api","retry_attempt":1,"retry_reason":"timeout",
             "payload":{"type":"event_callback","event":{"type":"message","channel":"C1","channel_type":"channel","user":"U2",
             "ts":"1712000002.000100","thread_ts":"1712000001.000100","text":"<@UBOT> !status","subtype":"thread_broadcast",
             "files":[{"id":"F1","url_private":"https://files.example/F1","mimetype":"image/png"}]}}}""",
            """
            {"envelope_id":"env-3","type":"events_api","payload":{"event":{"type":"message","channel":"C1","bot_id":"B9",
             "user":"U3","ts":"1712000003.000100","text":"bot says","subtype":"bot_message"}}}""",
            """
            {"envelope_id":"env-4","type":"slash_commands","payload":{"command":"/x","text":"y"}}""",
            """
            {"envelope_id":"env-5","type":"interactive","accepts_response_payload":false,"payload":{"type":"block_actions",
             "trigger_id":"1712000.123456.abcdef1","user":{"id":"U2","username":"user-u2"},"container":{"type":"message",
             "message_ts":"1712000004.000100","channel_id":"C1"},"channel":{"id":"C1","name":"general"},
             "message":{"type":"message","ts":"1712000004.000100","thread_ts":"1712000001.000100",
             "text":"Approval needed: shell\nReply /approve, /approve always, or /deny within 5 min."},
             "actions":[{"action_id":"herald_deny","block_id":"herald_approval","type":"button","value":"/deny",
             "action_ts":"1712000005.000100"}]}}""",
            """
            {"type":"hello","num_connections":1,"debug_info":{"host":"fake"},"connection_info":{"app_id":"A1"}}""",
            """
            {"type":"disconnect","reason":"refresh_requested","debug_info":{"host":"fake"}}""");

    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1", "U2");

    @Test
    void eventNormalisation_neverThrows_andEveryEventItMakesIsWellFormed() {
        SlackMessages messages = new SlackMessages(slack.settings(), Clock.systemUTC());
        messages.self(FakeSlack.BOT_USER, FakeSlack.BOT_ID);
        Fuzzer.of("slack event", CORPUS, 20_000).run(input -> {
            JsonNode envelope = JSON.readTree(input);
            if (envelope == null) {
                return;
            }
            messages.normalise(envelope.path("payload").path("event")).ifPresent(SlackFuzzTest::wellFormed);
        }, t -> t instanceof JacksonException);
    }

    @Test
    void pressReading_neverThrows_andEveryPressIsOneOfHeraldsCommands() {
        SlackPresses presses = new SlackPresses(null, Clock.systemUTC(), JSON, dev.herald.platforms.common.PressLedger.memoryState());
        Fuzzer.of("slack press", CORPUS, 5_000).run(input -> {
            JsonNode envelope = JSON.readTree(input);
            if (envelope == null) {
                return;
            }
            presses.read(envelope.path("payload")).ifPresent(p -> {
                wellFormed(p.event());
                assertThat(p.command()).isIn("/approve", "/approve always", "/deny");
                assertThat(p.event().text()).isEqualTo(p.command());
            });
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedFrames_andAnswersTheNextGoodMessage() {
        herald.start();
        Fuzzer.wire("slack wire", CORPUS, 400).run(frame -> {
            if (slack.connected()) {
                try {
                    slack.raw(frame);
                } catch (IllegalStateException reconnecting) {
                    // the adapter is between two connections (a fuzzed disconnect): this frame is lost, as on Slack
                }
            }
        }, t -> false);

        // sent again every 2 s until answered, as Slack retries an envelope nobody acknowledged (one sent on a connection being refreshed is lost)
        int[] attempt = {0};
        await().atMost(WAIT.multipliedBy(2)).pollInterval(java.time.Duration.ofSeconds(2)).until(() -> {
            if (slack.connected()) {
                slack.deliver(slack.message("D1", "im", "U1", "1712009999.000100", null, "still there?"), attempt[0]++);
            }
            return slack.posts.stream().anyMatch(p -> p.text().equals("echo: still there?"));
        });
        assertThat(slack.posts.stream().filter(p -> p.text().equals("echo: still there?"))).as("answered once").hasSize(1);
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isIn("U1", "U2"));
    }

    static void wellFormed(MessageEvent e) {
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
    }
}
