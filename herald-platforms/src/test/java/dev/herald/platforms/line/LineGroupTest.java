package dev.herald.platforms.line;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatType;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Groups and rooms: with {@code require_mention} (the default) only a message that mentions the bot itself starts a turn
 * (a mention of everyone or of someone else does not), the mention is cut out of the text, and the answer goes to the
 * group; a group is one session, apart from the same person's 1:1 chat. Without {@code require_mention} every message
 * of an allowed user is answered.
 */
class LineGroupTest {
    static final String ALICE = LineWebhookTest.ALICE;
    static final String GROUP = "C" + "4f".repeat(16);
    static final String ROOM = "R" + "7d".repeat(16);

    final FakeLine line = new FakeLine();
    @RegisterExtension
    final GatewayFixture herald = line.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void inAGroup_onlyAMentionOfTheBotItself_startsATurn_andTheAnswerGoesToTheGroup() {
        herald.start();

        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000001", "lunch at noon?")));
        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000002", "@All meeting moved", "all")));
        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000003", "@Bob can you check", "U" + "0c".repeat(16))));
        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000004", "@Herald summarize the thread", "self")));

        await().atMost(WAIT).until(() -> line.chatWith(GROUP).size() == 1);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> line.chatWith(GROUP).size() == 1);
        assertThat(line.chatWith(GROUP).getFirst()).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text)
                .containsExactly("reply", "echo: summarize the thread");
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.text()).as("the mention cut out").isEqualTo("summarize the thread");
            assertThat(t.source().chatType()).isEqualTo(ChatType.GROUP);
            assertThat(t.source().userId()).isEqualTo(ALICE);
        });
    }

    @Test
    void theGroup_aRoom_andTheSamePersonsOneToOneChat_areThreeSessions() {
        herald.start();

        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000005", "@Herald in the group", "self")));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        line.post(FakeLine.body(line.text(ALICE, "01HZX2A1000000000000000006", "in private")));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 2);
        line.post(FakeLine.body(line.groupText(ROOM, ALICE, "01HZX2A1000000000000000008", "room talk")));
        line.post(FakeLine.body(line.groupText(ROOM, ALICE, "01HZX2A1000000000000000009", "@Herald in the room", "self")));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 3);

        assertThat(java.util.stream.Stream.of("in the group", "in private", "in the room").map(t -> SessionKey.of(turnOf(t).source())).distinct())
                .hasSize(3);
        assertThat(line.chatWith(GROUP)).extracting(FakeLine.Delivered::text).containsExactly("echo: in the group");
        assertThat(line.chatWith(ALICE)).extracting(FakeLine.Delivered::text).containsExactly("echo: in private");
        assertThat(line.chatWith(ROOM)).extracting(FakeLine.Delivered::text).as("a room is gated like a group").containsExactly("echo: in the room");
    }

    @Test
    void withoutRequireMention_everyGroupMessage_isAnswered() {
        line.settings = line.settings.withRequireMention(false);
        herald.start();

        line.post(FakeLine.body(line.groupText(GROUP, ALICE, "01HZX2A1000000000000000007", "lunch at noon?")));

        await().atMost(WAIT).until(() -> line.chatWith(GROUP).size() == 1);
        assertThat(line.chatWith(GROUP).getFirst().text()).isEqualTo("echo: lunch at noon?");
    }
}
