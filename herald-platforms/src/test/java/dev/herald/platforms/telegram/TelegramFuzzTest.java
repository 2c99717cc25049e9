package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Telegram updates from a hostile or broken Bot API: the normaliser never throws, every event it makes is
 * well formed, and the running adapter survives a stream of malformed updates and still answers the next good
 * message, having stored turns only for well-formed messages from allowed users.
 */
@Tag("fuzz")
class TelegramFuzzTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;
    static final List<String> CORPUS = List.of(
            """
            {"update_id": 1, "message": {"message_id": 5, "from": {"id": 7, "is_bot": false, "username": "ann", "first_name": "Ann"},
             "chat": {"id": 7, "type": "private", "first_name": "Ann"}, "date": 1700000000, "text": "hi"}}""",
            """
            {"update_id": 2, "message": {"message_id": 50, "from": {"id": 7}, "message_thread_id": 9, "is_topic_message": true,
             "reply_to_message": {"message_id": 9}, "chat": {"id": -100, "type": "supergroup", "title": "Team", "is_forum": true},
             "text": "/status@Herald_Bot now", "entities": [{"type": "bot_command", "offset": 0, "length": 18}]}}""",
            """
            {"update_id": 3, "message": {"message_id": 51, "from": {"id": 8, "username": "bob"}, "chat": {"id": -5, "type": "group",
             "title": "G"}, "caption": "look", "photo": [{"file_id": "AgAD1", "width": 90, "height": 90, "file_size": 1000},
             {"file_id": "AgAD2", "width": 800, "height": 800}], "document": {"file_id": "BQAD", "file_name": "a.pdf",
             "mime_type": "application/pdf"}, "voice": {"file_id": "AwAD", "duration": 3, "mime_type": "audio/ogg"}}}""",
            """
            {"update_id": 4, "channel_post": {"message_id": 3, "sender_chat": {"id": -1001, "title": "News"},
             "chat": {"id": -1001, "type": "channel", "title": "News"}, "text": "posted"}}""",
            """
            {"update_id": 5, "edited_message": {"message_id": 5, "from": {"id": 7}, "chat": {"id": 7, "type": "private"}, "text": "edit"}}""",
            """
            {"update_id": 6, "message": {"message_id": 6, "from": {"id": 7}, "chat": {"id": 7, "type": "private"},
             "sticker": {"file_id": "CAAD", "emoji": "x"}, "video": {"file_id": "BAAD", "mime_type": "video/mp4"},
             "audio": {"file_id": "CQAD", "title": "song"}}}""",
            """
            {"update_id": 7, "callback_query": {"id": "4382000001", "from": {"id": 7, "first_name": "Ann"}, "chat_instance": "-1",
             "data": "/approve always", "message": {"message_id": 77, "date": 1700000000, "from": {"id": 42, "is_bot": true},
             "message_thread_id": 9, "is_topic_message": true, "chat": {"id": -100, "type": "supergroup", "title": "Team"},
             "text": "Approval needed: shell\nReply /approve, /approve always, or /deny within 5 min."}}}""",
            """
            {"update_id": 8, "message": {"message_id": 52, "from": {"id": 8}, "chat": {"id": -5, "type": "group"},
             "reply_to_message": {"message_id": 40, "from": {"id": 42, "is_bot": true}}, "text": "Herald: @Herald_Bot, go",
             "entities": [{"type": "text_mention", "offset": 0, "length": 6, "user": {"id": 42}},
             {"type": "mention", "offset": 8, "length": 11}]}}""");

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    @Test
    void normaliser_neverThrows_andEveryEventItMakesIsWellFormed() {
        Normaliser normaliser = new Normaliser(TelegramAdapter.PLATFORM);
        normaliser.botUsername("Herald_Bot");
        Fuzzer.of("telegram update", CORPUS, 20_000).run(input -> {
            JsonNode update = JsonHttp.JSON.readTree(input);
            if (update == null) {
                return;
            }
            normaliser.event(update, Instant.EPOCH).ifPresent(TelegramFuzzTest::wellFormed);
        }, t -> t instanceof JacksonException);
    }

    @Test
    void buttonPresses_andMentionsInGroups_neverThrow_andMakeWellFormedEvents() {
        Normaliser normaliser = new Normaliser(TelegramAdapter.PLATFORM, true);
        normaliser.bot(JsonHttp.JSON.createObjectNode().put("id", 42).put("username", "Herald_Bot"));
        ApprovalButtons buttons = new ApprovalButtons(TelegramAdapter.PLATFORM, null); // event() calls nothing
        buttons.sent("-100", "77");
        Fuzzer.of("telegram press or mention", CORPUS, 10_000).run(input -> {
            JsonNode update = JsonHttp.JSON.readTree(input);
            if (update == null) {
                return;
            }
            if (update.has("callback_query")) {
                buttons.event(update, Instant.EPOCH).ifPresent(e -> {
                    assertThat(SessionKey.of(e.source())).isNotNull();
                    assertThat(ApprovalButtons.BUTTONS).containsValue(e.text());
                    assertThat(e.messageId()).startsWith("cb").endsWith(":" + e.source().chatId() + ":77");
                });
            } else {
                normaliser.event(update, Instant.EPOCH).ifPresent(TelegramFuzzTest::wellFormed);
            }
        }, t -> t instanceof JacksonException);
    }

    @Test
    void adapter_survivesMalformedUpdates_andAnswersTheNextGoodMessage() {
        h.start();
        Fuzzer.wire("telegram wire", CORPUS, 300).run(input -> {
            JsonNode tree = JsonHttp.JSON.readTree(input);
            if (tree instanceof ObjectNode update) {
                fake.resendAsNewUpdate(update);
            }
        }, t -> t instanceof JacksonException);
        fake.userSays(USER, "still there?");

        await().atMost(WAIT.multipliedBy(2)).until(() -> fake.calls("sendMessage").stream()
                .anyMatch(c -> c.body().path("text").asText().equals("echo: still there?")));
        assertThat(h.turns()).allSatisfy(t -> {
            assertThat(t.source().userId()).as("only the allowed user gets turns").isEqualTo(Long.toString(USER));
            assertThat(t.text()).isNotBlank();
        });
    }

    /** Found by the fuzzer: this update was retried every 40 ms forever, and no later message was ever read. */
    @Test
    void anUpdateWhoseIdsCannotNameASession_isPassedOver_andTheNextMessageIsAnswered() throws Exception {
        h.start();
        fake.userSays(USER, "poison", m -> {
            m.withObject("chat").put("id", "100\t");
            m.withObject("from").put("id", "B\tW");
        });
        fake.userSays(USER, "after the poison");

        await().atMost(WAIT).until(() -> fake.calls("sendMessage").stream()
                .anyMatch(c -> c.body().path("text").asText().equals("echo: after the poison")));
        assertThat(h.agent.messages()).containsExactly("after the poison");
    }

    static void wellFormed(MessageEvent e) {
        assertThat(e.source().chatId()).isNotEmpty();
        assertThat(SessionKey.of(e.source())).as("its ids name a session").isNotNull();
        assertThat(e.text().isBlank() && e.media().isEmpty()).as("an event carries text or media").isFalse();
        if (e.messageId() != null) {
            assertThat(e.messageId()).startsWith(e.source().chatId() + ":");
        }
        Optional.ofNullable(e.replyToMessageId()).ifPresent(r -> assertThat(r).startsWith(e.source().chatId() + ":"));
    }
}
