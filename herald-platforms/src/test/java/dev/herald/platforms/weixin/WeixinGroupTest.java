package dev.herald.platforms.weixin;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group chats and the typing indicator against a local fake of the iLink API: in a group only messages that name the bot
 * (mention_names) start a turn, keyed by the group, and the reply goes to the group with the group's context token; while
 * a turn runs the indicator is shown through getconfig's typing_ticket and sendtyping, and cancelled once the reply went out.
 */
class WeixinGroupTest {
    private static final String TOKEN = "ilink-secret-token";
    private static final String ALICE = "wxid_alice@im.wechat";
    private static final String BOB = "wxid_bob@im.wechat";
    private static final String GROUP = "12345678901@chatroom";

    @TempDir
    Path dir;

    private final FakeILink fake = new FakeILink(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new WeixinAdapter(fake.settings(TOKEN).withMentions(true, List.of("Herald")).withAllowedUsers(List.of(ALICE, BOB)),
            new WeixinSettings.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(50),
                    Duration.ofMillis(300)), dir.resolve("weixin/state.json"), clock)).allow(ALICE, BOB).closing(fake);

    @Test
    void inAGroup_onlyMessagesNamingTheBot_startATurn_andTheReplyGoesToTheGroup() throws Exception {
        h.start().agent.reply("it is noon").reply("hi Alice");

        fake.userSends(ALICE, GROUP, "ctx-g1", FakeILink.textItem("lunch anyone?"));
        fake.userSends(BOB, GROUP, "ctx-g2", FakeILink.textItem("@Herald\u2005what time is it?"));
        await().atMost(WAIT).until(() -> fake.sent().size() == 1);
        fake.userSays(ALICE, "hello", "ctx-dm");
        await().atMost(WAIT).until(() -> fake.sent().size() == 2);

        assertThat(h.agent.messages()).containsExactly("what time is it?", "hello");
        TurnRecord groupTurn = h.turns().stream().filter(t -> t.text().equals("what time is it?")).findFirst().orElseThrow();
        assertThat(groupTurn.source().chatType()).isEqualTo(ChatType.GROUP);
        assertThat(groupTurn.source().chatId()).isEqualTo(GROUP);
        assertThat(groupTurn.source().userId()).isEqualTo(BOB);
        JsonNode toGroup = fake.sent().get(0);
        assertThat(toGroup.path("to_user_id").asText()).isEqualTo(GROUP);
        assertThat(toGroup.path("context_token").asText()).isEqualTo("ctx-g2");
        assertThat(toGroup.path("item_list").get(0).path("text_item").path("text").asText()).isEqualTo("it is noon");
        assertThat(fake.sent().get(1).path("to_user_id").asText()).as("one-to-one chats need no mention").isEqualTo(ALICE);
    }

    @Test
    void whileATurnRuns_theTypingIndicatorIsOn_andIsCancelledAfterTheReply() throws Exception {
        h.start();
        ScriptedAgent.Hold hold = h.agent.hold("done thinking");
        fake.userSays(ALICE, "think hard", "ctx-1");
        hold.awaitArrival(WAIT);

        await().atMost(WAIT).until(() -> fake.typing.contains(ALICE + " ticket-" + ALICE + " 1"));
        assertThat(fake.sent()).isEmpty();
        hold.release();

        await().atMost(WAIT).until(() -> fake.typing.contains(ALICE + " ticket-" + ALICE + " 2"));
        assertThat(fake.sent()).extracting(m -> m.path("item_list").get(0).path("text_item").path("text").asText())
                .containsExactly("done thinking");
        assertThat(h.current.capabilities().typing()).isTrue();
    }
}
