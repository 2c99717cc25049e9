package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import dev.herald.core.schedule.ScheduleCommand;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Slack adapter in conversation: a real gateway and store, the real adapter, a fake Slack. */
class SlackConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1", "U2");
    SlackAdapter adapter;

    @BeforeEach
    void setUp() {
        adapter = (SlackAdapter) herald.start().current;
    }

    @Test
    void aDirectMessage_getsExactlyOneReplyInTheDm_andIsAcknowledgedOnlyAfterItWasStored() {
        Map<String, Integer> turnsAtAck = new ConcurrentHashMap<>();
        slack.onAck = id -> turnsAtAck.put(id, herald.turns().size());
        herald.agent.reply("hi from herald");

        String envelope = slack.deliver(slack.message("D1", "im", "U1", "1712000001.000100", null, "hello"));

        await().atMost(WAIT).during(SETTLE).until(() -> slack.posts.size() == 1);
        assertThat(slack.postsIn("D1", null)).singleElement().extracting(FakeSlack.Post::text).isEqualTo("hi from herald");
        assertThat(slack.acks).containsExactly(envelope);
        assertThat(turnsAtAck).as("the turn was stored when the ack went out").containsEntry(envelope, 1);
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.platformMessageId()).isEqualTo("D1:1712000001.000100");
            assertThat(t.sessionKey().value()).isEqualTo("agent:main:slack:dm:D1");
        });
    }

    @Test
    void aChannelMessageMentioningTheBot_isAnsweredInAThreadUnderIt_andRepliesInThatThreadContinueTheSession() {
        String top = "1712000002.000100";
        slack.deliver(slack.message("C1", "channel", "U1", top, null, "<@" + FakeSlack.BOT_USER + "> plan the trip"));
        await().atMost(WAIT).until(() -> slack.postsIn("C1", top).size() == 1);

        slack.deliver(slack.message("C1", "channel", "U2", "1712000003.000100", top, "and the budget?"));

        await().atMost(WAIT).during(SETTLE).until(() -> slack.postsIn("C1", top).size() == 2);
        assertThat(slack.postsIn("C1", null)).as("nothing is posted at the top of the channel").isEmpty();
        assertThat(herald.agent.messages()).containsExactly("plan the trip", "and the budget?");
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsOnly("agent:main:slack:thread:C1:" + top);
    }

    @Test
    void anAnswerWithEveryConstruct_isPostedInMrkdwn() {
        herald.agent.reply(dev.herald.platforms.common.Answers.everyConstruct());

        slack.deliver(slack.message("D1", "im", "U1", "1712000005.000100", null, "show me everything"));

        await().atMost(WAIT).until(() -> slack.posts.size() == 1);
        assertThat(slack.posts.getFirst().text()).isEqualTo(dev.herald.platforms.common.Answers.everyConstructAs("slack.txt"))
                .contains("*Release notes*", "*2.0*", "_out_", "~no~", "<https://docs.herald.invalid/guide?a=1&amp;b=2|the guide>",
                        "> Quoted advice", "```\nif (a &lt; b");
    }

    @Test
    void aChannelMessageWithoutAMention_isAcknowledgedAndIgnored() {
        String envelope = slack.deliver(slack.message("C1", "channel", "U1", "1712000004.000100", null, "just talking to people"));

        await().atMost(WAIT).until(() -> slack.acks.contains(envelope));
        assertThat(herald.turns()).isEmpty();
        assertThat(slack.posts).isEmpty();
    }

    @Test
    void aLongReply_isSplitBelowSlacksLimit_withoutBreakingTheCodeBlock() {
        String code = IntStream.range(0, 3000).mapToObj(i -> "print(\"line " + i + " of a long listing\")").collect(Collectors.joining("\n"));
        herald.agent.reply("Listing:\n```python\n" + code + "\n```\nEnd of listing.");

        slack.deliver(slack.message("D1", "im", "U1", "1712000005.000100", null, "give me the listing"));

        await().atMost(WAIT).until(() -> slack.posts.stream().anyMatch(p -> p.text().endsWith("End of listing.")));
        List<FakeSlack.Post> parts = slack.postsIn("D1", null);
        assertThat(parts).hasSizeGreaterThanOrEqualTo(3);
        for (FakeSlack.Post part : parts) {
            assertThat(part.text().length()).isLessThanOrEqualTo(SlackAdapter.MAX_TEXT);
            assertThat(part.text().lines().filter(l -> l.strip().startsWith("```")).count()).isEven().isPositive();
        }
        assertThat(parts.stream().map(FakeSlack.Post::text).collect(Collectors.joining("\n"))).contains("line 0 of", "line 2999 of");
    }

    @Test
    void anEventSlackDeliversTwice_getsOneTurnAndOneReply_andBothEnvelopesAreAcknowledged() {
        ObjectNode event = slack.message("D1", "im", "U1", "1712000006.000100", null, "only once");

        String first = slack.deliver(event);
        String retry = slack.deliver(event, 1);

        await().atMost(WAIT).during(SETTLE).until(() -> slack.posts.size() == 1);
        await().atMost(WAIT).until(() -> slack.acks.containsAll(List.of(first, retry)));
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aUserOutsideTheAllowlist_getsNoTurn_butTheEnvelopeIsAcknowledged() {
        String envelope = slack.deliver(slack.message("D9", "im", "UNKNOWN", "1712000007.000100", null, "let me in"));

        await().atMost(WAIT).until(() -> slack.acks.contains(envelope));
        assertThat(herald.turns()).isEmpty();
        assertThat(herald.agent.calls()).isEmpty();
        assertThat(slack.posts).isEmpty();
    }

    @Test
    void botMessagesEditsAndTheBotsOwnMessages_areAcknowledgedAndIgnored() {
        ObjectNode bot = slack.message("D1", "im", "U1", "1712000008.000100", null, "beep").put("bot_id", "BOTHER");
        ObjectNode edit = slack.message("D1", "im", "U1", "1712000008.000200", null, "edited").put("subtype", "message_changed");
        ObjectNode own = slack.message("D1", "im", FakeSlack.BOT_USER, "1712000008.000300", null, "my reply");
        List<String> envelopes = List.of(slack.deliver(bot), slack.deliver(edit), slack.deliver(own));
        slack.deliver(slack.message("D1", "im", "U1", "1712000008.000400", null, "a person"));

        await().atMost(WAIT).during(SETTLE).until(() -> slack.posts.size() == 1);
        assertThat(slack.acks).containsAll(envelopes);
        assertThat(herald.agent.messages()).containsExactly("a person");
    }

    @Test
    void aBangCommand_isReadAsTheGatewaysSlashCommand_andAnsweredWithoutATurn() {
        slack.deliver(slack.message("D1", "im", "U1", "1712000009.000100", null, "!help"));

        await().atMost(WAIT).until(() -> slack.posts.size() == 1);
        assertThat(slack.posts.getFirst().text()).contains("/status");
        assertThat(herald.agent.calls()).isEmpty();
        assertThat(herald.turns()).isEmpty();
    }

    @Test
    void bangConversationCommands_areReadAsTheGatewaysCommands() {
        slack.deliver(slack.message("D1", "im", "U1", "1712000010.000100", null, "!title Trip planning"));
        await().atMost(WAIT).until(() -> slack.posts.size() == 1);
        slack.deliver(slack.message("D1", "im", "U1", "1712000010.000200", null, "!sessions"));
        await().atMost(WAIT).until(() -> slack.posts.size() == 2);
        slack.deliver(slack.message("D1", "im", "U1", "1712000010.000300", null, "!whoami"));
        await().atMost(WAIT).until(() -> slack.posts.size() == 3);

        assertThat(slack.posts.get(1).text()).contains("Trip planning");
        assertThat(slack.posts.get(2).text()).contains("U1");
        assertThat(herald.agent.calls()).as("commands, never turns").isEmpty();
    }

    @Test
    void bangSchedule_isReadAsSlashSchedule_andStoresAJobForThisDm() {
        herald.stop(StopKind.SHUTDOWN);
        herald.with(b -> b.command(new ScheduleCommand(new Schedules(herald.storage.schedules(), herald.clock, ZoneId.of("UTC"), p -> true))))
                .restart();

        slack.deliver(slack.message("D1", "im", "U1", "1712000012.000100", null, "!schedule add every 30m Check the build"));

        await().atMost(WAIT).until(() -> slack.posts.size() == 1);
        assertThat(slack.posts.getFirst().text()).startsWith("\u23f0 Scheduled ").contains("every 30m");
        assertThat(herald.storage.schedules().list()).singleElement().satisfies(j -> {
            assertThat(j.prompt()).isEqualTo("Check the build");
            assertThat(j.target()).isEqualTo("slack:D1");
        });
        assertThat(herald.turns()).isEmpty();
    }

    @Test
    void slacksEscapes_areUndoneForTheModel_andAppliedToTheReply() {
        herald.agent.reply("if a < b && b > c");

        slack.deliver(slack.message("D1", "im", "U1", "1712000011.000100", null, "is &lt;b&gt; &amp; bold?"));

        await().atMost(WAIT).until(() -> slack.posts.size() == 1);
        assertThat(herald.agent.messages()).containsExactly("is <b> & bold?");
        assertThat(slack.posts.getFirst().text()).isEqualTo("if a &lt; b &amp;&amp; b &gt; c");
    }

    @Test
    void aRateLimitedPost_isRetriedAfterSlacksRetryAfter_andArrivesOnce() {
        slack.postRetryAfter.add(1);

        slack.deliver(slack.message("D1", "im", "U1", "1712000010.000100", null, "busy"));

        await().atMost(WAIT).during(SETTLE).until(() -> slack.posts.size() == 1);
        assertThat(slack.postAttempts.get()).isEqualTo(2);
    }

    @Test
    void anOkFalseAnswer_isAFailedSendNamingSlacksErrorCode() {
        slack.postErrors.add("channel_not_found");
        slack.postErrors.add("internal_error");
        ChatTarget nowhere = ChatTarget.of("C404");

        SendResult notFound = adapter.send(OutboundMessage.notice(nowhere, "hello?"));
        SendResult transientError = adapter.send(OutboundMessage.notice(nowhere, "hello?"));

        assertThat(notFound.success()).isFalse();
        assertThat(notFound.error()).isEqualTo("slack - chat.postMessage to C404 failed (channel_not_found)");
        assertThat(notFound.retryable()).isFalse();
        assertThat(transientError.retryable()).isTrue();
        assertThat(herald.turns()).extracting(TurnRecord::id).isEmpty();
    }
}
