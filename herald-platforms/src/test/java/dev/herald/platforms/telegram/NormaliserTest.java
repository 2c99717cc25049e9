package dev.herald.platforms.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.platforms.common.JsonHttp;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How Telegram updates become Herald's message events (the edge's normalisation, without a network). */
class NormaliserTest {
    private final Normaliser normaliser = new Normaliser(TelegramAdapter.PLATFORM);

    @BeforeEach
    void knowsItsName() {
        normaliser.botUsername("Herald_Bot");
    }

    private Optional<MessageEvent> event(String json) throws Exception {
        JsonNode update = JsonHttp.JSON.readTree(json);
        return normaliser.event(update, Instant.EPOCH);
    }

    @Test
    void privateChat_isADirectMessage_withAChatPrefixedMessageId() throws Exception {
        MessageEvent e = event("""
                {"update_id": 1, "message": {"message_id": 5, "from": {"id": 7, "username": "ann"},
                 "chat": {"id": 7, "type": "private", "first_name": "Ann"}, "text": "hi"}}""").orElseThrow();

        assertThat(e.source().chatType()).isEqualTo(ChatType.DM);
        assertThat(e.source().userId()).isEqualTo("7");
        assertThat(e.source().userName()).isEqualTo("ann");
        assertThat(e.messageId()).isEqualTo("7:5");
        assertThat(e.text()).isEqualTo("hi");
    }

    @Test
    void forumTopic_isTheThread_andItsRootIsNotAReply() throws Exception {
        MessageEvent e = event("""
                {"update_id": 1, "message": {"message_id": 50, "from": {"id": 7}, "message_thread_id": 9, "is_topic_message": true,
                 "reply_to_message": {"message_id": 9}, "chat": {"id": -100, "type": "supergroup", "title": "Team", "is_forum": true},
                 "text": "in the topic"}}""").orElseThrow();

        assertThat(e.source().chatType()).isEqualTo(ChatType.GROUP);
        assertThat(e.source().threadId()).isEqualTo("9");
        assertThat(e.source().chatName()).isEqualTo("Team");
        assertThat(e.replyToMessageId()).isNull();
    }

    @Test
    void replyInAPlainGroup_keepsTheRepliedMessage_andNoThread() throws Exception {
        MessageEvent e = event("""
                {"update_id": 1, "message": {"message_id": 51, "from": {"id": 7}, "message_thread_id": 40,
                 "reply_to_message": {"message_id": 40}, "chat": {"id": -5, "type": "group"}, "text": "yes"}}""").orElseThrow();

        assertThat(e.source().threadId()).isNull();
        assertThat(e.replyToMessageId()).isEqualTo("-5:40");
    }

    @Test
    void commandForThisBot_losesTheSuffix_andOneForAnotherBotIsDropped() throws Exception {
        String mine = """
                {"update_id": 1, "message": {"message_id": 1, "from": {"id": 7}, "chat": {"id": -5, "type": "group"},
                 "text": "/status@herald_bot now"}}""";
        String theirs = mine.replace("herald_bot", "other_bot");

        assertThat(event(mine).orElseThrow().text()).isEqualTo("/status now");
        assertThat(event(mine).orElseThrow().command()).isEqualTo("status");
        assertThat(event(theirs)).isEmpty();
    }

    @Test
    void photoWithCaption_isTextPlusTheLargestSizeAsMedia() throws Exception {
        MessageEvent e = event("""
                {"update_id": 1, "message": {"message_id": 2, "from": {"id": 7}, "chat": {"id": 7, "type": "private"},
                 "caption": "what is this?", "photo": [{"file_id": "small"}, {"file_id": "large"}],
                 "document": {"file_id": "doc1", "mime_type": "application/pdf"}}}""").orElseThrow();

        assertThat(e.text()).isEqualTo("what is this?");
        assertThat(e.media()).containsExactly(new MessageEvent.MediaRef("photo", "large", "image/jpeg"),
                new MessageEvent.MediaRef("document", "doc1", "application/pdf"));
    }

    @Test
    void channelPost_isAChannelMessageFromTheChannel_andServiceMessagesAreSkipped() throws Exception {
        MessageEvent post = event("""
                {"update_id": 1, "channel_post": {"message_id": 3, "sender_chat": {"id": -77, "title": "News"},
                 "chat": {"id": -77, "type": "channel", "title": "News"}, "text": "announcement"}}""").orElseThrow();
        assertThat(post.source().chatType()).isEqualTo(ChatType.CHANNEL);
        assertThat(post.source().userId()).isEqualTo("-77");

        assertThat(event("""
                {"update_id": 2, "message": {"message_id": 4, "from": {"id": 7}, "chat": {"id": -5, "type": "group"},
                 "new_chat_members": [{"id": 8}]}}""")).isEmpty();
        assertThat(event("{\"update_id\": 3, \"edited_message\": {\"message_id\": 1}}")).isEmpty();
    }

    @Test
    void withMentionsRequired_aGroupMessageCounts_onlyWhenItIsForTheBot_andLosesTheMention() throws Exception {
        Normaliser gated = new Normaliser(TelegramAdapter.PLATFORM, true);
        gated.bot(JsonHttp.JSON.readTree("{\"id\": 42, \"username\": \"Herald_Bot\"}"));
        java.util.function.Function<String, Optional<String>> text = message -> {
            try {
                return gated.event(JsonHttp.JSON.readTree("{\"update_id\": 1, \"message\": {\"message_id\": 9, \"from\": {\"id\": 7}, "
                        + "\"chat\": {\"id\": -5, \"type\": \"group\"}, " + message + "}}"), Instant.EPOCH).map(MessageEvent::text);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };

        assertThat(text.apply("\"text\": \"lunch?\"")).isEmpty();
        assertThat(text.apply("\"text\": \"ask @Herald_Bot_2\"")).as("another bot's name").isEmpty();
        assertThat(text.apply("\"text\": \"@herald_bot: what time is it?\"")).contains("what time is it?");
        assertThat(text.apply("\"text\": \"@Herald_Bot\"")).as("only the mention: nothing to answer").isEmpty();
        assertThat(text.apply("\"text\": \"Herald, go\", \"entities\": [{\"type\": \"text_mention\", \"offset\": 0, \"length\": 6, "
                + "\"user\": {\"id\": 42}}]")).contains("go");
        assertThat(text.apply("\"text\": \"Tom, go\", \"entities\": [{\"type\": \"text_mention\", \"offset\": 0, \"length\": 3, "
                + "\"user\": {\"id\": 8}}]")).as("someone else mentioned").isEmpty();
        assertThat(text.apply("\"text\": \"and now?\", \"reply_to_message\": {\"message_id\": 8, \"from\": {\"id\": 42}}")).contains("and now?");
        assertThat(text.apply("\"text\": \"/status@Herald_Bot\"")).contains("/status");
        assertThat(text.apply("\"text\": \"/status\"")).contains("/status");
        assertThat(text.apply("\"caption\": \"@Herald_Bot look\", \"document\": {\"file_id\": \"BQAD\"}")).contains("look");
    }

    @Test
    void aGroupsOwnRequireMention_winsOverThePlatforms() throws Exception {
        Normaliser gated = new Normaliser(TelegramAdapter.PLATFORM, true);
        gated.bot(JsonHttp.JSON.readTree("{\"id\": 42, \"username\": \"Herald_Bot\"}"));
        gated.useChannels((platform, chatId) -> chatId.equals("-5")
                ? Optional.of(new dev.herald.core.platform.ChannelOverrides.Channel(null, null, null, null, false)) : Optional.empty());
        java.util.function.Function<Long, Optional<String>> lunchIn = chat -> {
            try {
                return gated.event(JsonHttp.JSON.readTree("{\"update_id\": 1, \"message\": {\"message_id\": 9, \"from\": {\"id\": 7}, "
                        + "\"chat\": {\"id\": " + chat + ", \"type\": \"group\"}, \"text\": \"lunch?\"}}"), Instant.EPOCH).map(MessageEvent::text);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };

        assertThat(lunchIn.apply(-5L)).as("the group whose channel settings need no mention").contains("lunch?");
        assertThat(lunchIn.apply(-6L)).as("another group keeps the platform's require_mention").isEmpty();
    }
}
