package dev.herald.platforms.mattermost;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static dev.herald.platforms.mattermost.FakeMattermost.BOB;
import static dev.herald.platforms.mattermost.FakeMattermost.MALLORY;
import static dev.herald.platforms.mattermost.FakeMattermost.TOWN_SQUARE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.auth.Pairing;
import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Mattermost adapter in conversation: a real gateway and store, the real adapter, a fake Mattermost server. */
class MattermostConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE, BOB).withPairing();

    @BeforeEach
    void setUp() {
        herald.start();
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aDirectMessage_getsExactlyOneReplyInTheDm_inOneSessionPerDm() {
        String dm = mm.dm(ALICE);
        herald.agent.reply("hi from herald");

        ObjectNode post = mm.say(ALICE, dm, "hello");

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 1);
        assertThat(mm.botPosts(dm)).singleElement().satisfies(p -> {
            assertThat(p.path("message").asText()).isEqualTo("hi from herald");
            assertThat(p.path("root_id").asText()).as("a DM is answered at the top level").isEmpty();
            assertThat(p.path("pending_post_id").asText()).startsWith("herald:");
        });
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.platformMessageId()).isEqualTo(post.path("id").asText());
            assertThat(t.sessionKey().value()).isEqualTo("agent:main:mattermost:dm:" + dm);
        });
    }

    @Test
    void aChannelPost_isAnsweredOnlyWhenItMentionsTheBot_withTheMentionTakenOut_inASessionPerUser() {
        mm.say(ALICE, TOWN_SQUARE, "just talking to people, herald is not asked");
        mm.say(ALICE, TOWN_SQUARE, "an email like bob@herald.example is no mention");
        mm.say(ALICE, TOWN_SQUARE, "@herald plan the trip");
        mm.say(BOB, TOWN_SQUARE, "@Herald, and the budget?");

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(TOWN_SQUARE).size() == 2);
        assertThat(herald.agent.messages()).containsExactlyInAnyOrder("plan the trip", "and the budget?");
        assertThat(mm.botPosts(TOWN_SQUARE)).allSatisfy(p -> assertThat(p.path("root_id").asText()).isEmpty());
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsExactlyInAnyOrder(
                "agent:main:mattermost:group:" + TOWN_SQUARE + ":" + ALICE, "agent:main:mattermost:group:" + TOWN_SQUARE + ":" + BOB);
    }

    @Test
    void aPostInAThread_isAnsweredInThatThread_withItsRootId_andTheThreadIsOneSession() {
        ObjectNode root = mm.say(BOB, TOWN_SQUARE, "release checklist, anyone?");
        String rootId = root.path("id").asText();

        mm.say(ALICE, TOWN_SQUARE, "@herald what is step one?", rootId);
        await().atMost(WAIT).until(() -> mm.botPosts(TOWN_SQUARE).size() == 1);
        mm.say(BOB, TOWN_SQUARE, "@herald and step two?", rootId);

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(TOWN_SQUARE).size() == 2);
        assertThat(mm.botPosts(TOWN_SQUARE)).allSatisfy(p -> assertThat(p.path("root_id").asText()).isEqualTo(rootId));
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsOnly(
                "agent:main:mattermost:thread:" + TOWN_SQUARE + ":" + rootId);
    }

    @Test
    void anUnknownUser_getsAPairingCodeInADm_andNothingInAChannel() {
        String dm = mm.dm(MALLORY);

        mm.say(MALLORY, TOWN_SQUARE, "@herald let me in");
        mm.say(MALLORY, dm, "let me in");

        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);
        Matcher code = Pattern.compile("pairing code: ([" + Pairing.ALPHABET + "]{8})").matcher(mm.botMessages(dm).getFirst());
        assertThat(code.find()).isTrue();
        assertThat(mm.botMessages(dm).getFirst()).contains("herald pairing approve mattermost " + code.group(1));
        await().during(SETTLE).atMost(WAIT).until(() -> mm.botPosts(TOWN_SQUARE).isEmpty());
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void aPostOf16000Characters_isAnswered_andTheAdapterKeepsServing() {
        String dm = mm.dm(ALICE);
        String big = "x".repeat(16_000);

        mm.say(ALICE, dm, big);
        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);
        mm.say(ALICE, dm, "still there?");

        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 2);
        assertThat(herald.agent.messages()).containsExactly(big, "still there?");
        assertThat(mm.botMessages(dm).get(1)).isEqualTo("echo: still there?");
    }

    @Test
    void aLongReply_isSplitBelowTheServersLimit_withoutBreakingTheCodeBlock() {
        String dm = mm.dm(ALICE);
        String code = IntStream.range(0, 1200).mapToObj(i -> "print(\"line " + i + " of a long listing\")").collect(Collectors.joining("\n"));
        herald.agent.reply("Listing:\n```python\n" + code + "\n```\nEnd of listing.");

        mm.say(ALICE, dm, "give me the listing");

        await().atMost(WAIT).until(() -> mm.botMessages(dm).stream().anyMatch(m -> m.endsWith("End of listing.")));
        List<String> parts = mm.botMessages(dm);
        assertThat(parts).hasSizeGreaterThanOrEqualTo(2);
        for (String part : parts) {
            assertThat(part.codePointCount(0, part.length())).isLessThanOrEqualTo(MattermostAdapter.MAX_TEXT);
            assertThat(part.lines().filter(l -> l.strip().startsWith("```")).count()).isEven().isPositive();
        }
        assertThat(String.join("\n", parts)).contains("line 0 of", "line 1199 of");
        assertThat(parts.stream().map(p -> mm.botPosts(dm).stream().filter(x -> x.path("message").asText().equals(p)).findFirst()
                .orElseThrow().path("pending_post_id").asText()).distinct()).as("each part has its own pending_post_id").hasSize(parts.size());
    }

    @Test
    void aRateLimitedPost_isSentAgainAfterTheServersWait_andArrivesOnce() {
        String dm = mm.dm(ALICE);
        mm.postRetryAfter.add(1);

        mm.say(ALICE, dm, "busy?");

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 1);
        assertThat(mm.postAttempts.get()).isEqualTo(2);
        assertThat(turnOf("busy?").replyMessageId()).isEqualTo(mm.botPosts(dm).getFirst().path("id").asText());
    }

    @Test
    void aRunningTurn_showsTypingInItsThread() {
        ObjectNode root = mm.say(BOB, TOWN_SQUARE, "thread root");
        ScriptedAgent.Hold hold = herald.agent.hold("done");

        mm.say(ALICE, TOWN_SQUARE, "@herald think hard", root.path("id").asText());
        hold.awaitArrival(WAIT);

        await().atMost(WAIT).until(() -> !mm.typing.isEmpty());
        assertThat(mm.typing.getFirst().path("channel_id").asText()).isEqualTo(TOWN_SQUARE);
        assertThat(mm.typing.getFirst().path("parent_id").asText()).isEqualTo(root.path("id").asText());
        hold.release();
        await().atMost(WAIT).until(() -> mm.botPosts(TOWN_SQUARE).size() == 1);
    }

    @Test
    void aBangCommand_isReadAsTheGatewaysSlashCommand_andAnsweredWithoutATurn() {
        String dm = mm.dm(ALICE);

        mm.say(ALICE, dm, "!help");

        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);
        assertThat(mm.botMessages(dm).getFirst()).contains("/status");
        assertThat(herald.agent.calls()).isEmpty();
    }

    @Test
    void theBotsOwnPostsAndSystemPosts_areIgnored() {
        String dm = mm.dm(ALICE);
        mm.raw("{\"event\":\"posted\",\"seq\":1,\"data\":{\"channel_type\":\"D\",\"post\":"
                + FakeMattermost.JSON.valueToTree("{\"id\":\"sys00000000000000000000001\",\"channel_id\":\"" + dm
                        + "\",\"user_id\":\"" + ALICE + "\",\"type\":\"system_join_channel\",\"message\":\"alice joined\",\"create_at\":1}")
                + "}}");
        mm.say(FakeMattermost.BOT, dm, "my own words");
        mm.say(ALICE, dm, "a person");

        await().atMost(WAIT).during(SETTLE).until(() -> mm.botPosts(dm).size() == 2);
        assertThat(herald.agent.messages()).containsExactly("a person");
    }
}
