package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.turn.TurnRecord;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Discord adapter in conversation: a real gateway and store, the real adapter, a fake Discord. */
class DiscordConversationTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1", "u2");

    @Test
    void aDirectMessage_getsExactlyOneReply_inItsChannel_asAReplyToIt() {
        herald.start();
        herald.agent.reply("hello back");

        discord.message("5001", "dm-1", null, "u1", "hi there");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("dm-1").size() == 1);
        FakeDiscord.Post post = discord.postsTo("dm-1").getFirst();
        assertThat(post.content()).isEqualTo("hello back");
        assertThat(post.replyTo()).isEqualTo("5001");
        assertThat(post.authorization()).isEqualTo("Bot " + FakeDiscord.TOKEN);
        assertThat(post.body().path("allowed_mentions").path("parse")).as("the model's text pings nobody").isEmpty();
        assertThat(herald.agent.messages()).containsExactly("hi there");
        assertThat(discord.posts).hasSize(1);
    }

    @Test
    void anAnswerWithEveryConstruct_isPostedInDiscordMarkdown() {
        herald.start();
        herald.agent.reply(dev.herald.platforms.common.Answers.everyConstruct());

        discord.message("5002", "dm-1", null, "u1", "show me everything");

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.postsTo("dm-1").getFirst().content()).isEqualTo(dev.herald.platforms.common.Answers.everyConstructAs("discord.md"))
                .contains("# Release notes", "**2.0**", "~~no~~", "[the guide](https://docs.herald.invalid/guide?a=1&b=2)",
                        "> Quoted advice", "```java\n", "```\nPlatform | Limit");
    }

    @Test
    void identify_asksForGuildsMessagesDirectMessagesAndMessageContent() {
        herald.start();

        assertThat(discord.sent(2)).singleElement().satisfies(identify -> {
            assertThat(identify.path("d").path("intents").asInt()).isEqualTo(1 | 512 | 4096 | 32768);
            assertThat(identify.path("d").path("token").asText()).isEqualTo(FakeDiscord.TOKEN);
        });
    }

    @Test
    void aChannelMessage_isAnsweredOnlyWhenItMentionsTheBot_andTheMentionIsRemoved() {
        herald.start();

        discord.message("5101", "general-1", FakeDiscord.GUILD, "u1", "just chatting with friends");
        discord.message("5102", "general-1", FakeDiscord.GUILD, "u1", "<@" + FakeDiscord.BOT_ID + "> what is 2+2?");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("general-1").size() == 1);
        assertThat(herald.agent.messages()).containsExactly("what is 2+2?");
        assertThat(discord.postsTo("general-1").getFirst().content()).isEqualTo("echo: what is 2+2?");
        assertThat(herald.turns()).singleElement().satisfies(t ->
                assertThat(t.sessionKey().value()).isEqualTo("agent:main:discord:group:general-1:u1"));
    }

    @Test
    void threadMessages_areAnsweredInTheThread_andEveryoneInTheThreadSharesOneSession() {
        discord.thread("thread-7", "general-1", "planning");
        herald.start();

        discord.message("5201", "thread-7", FakeDiscord.GUILD, "u1", "first in thread");
        await().atMost(WAIT).until(() -> discord.postsTo("thread-7").size() == 1);
        discord.message("5202", "thread-7", FakeDiscord.GUILD, "u2", "second, from someone else");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("thread-7").size() == 2);
        assertThat(discord.postsTo("general-1")).as("nothing leaks into the parent channel").isEmpty();
        assertThat(herald.turns()).extracting(t -> t.sessionKey().value()).containsOnly("agent:main:discord:thread:general-1:thread-7");
    }

    @Test
    void aThreadTheGatewayNeverAnnounced_isLookedUpOverRest_andAnsweredInTheThread() {
        herald.start();
        discord.thread("thread-late", "general-1", "created while we were away");

        discord.message("5301", "thread-late", FakeDiscord.GUILD, "u1", "hello from a new thread");

        await().atMost(WAIT).until(() -> discord.postsTo("thread-late").size() == 1);
        assertThat(herald.turns()).singleElement().satisfies(t -> {
            assertThat(t.source().chatId()).isEqualTo("general-1");
            assertThat(t.source().threadId()).isEqualTo("thread-late");
        });
    }

    @Test
    void aLongReply_isSplitAtTwoThousandCharacters_withoutBreakingTheCodeBlock() {
        herald.start();
        String code = IntStream.range(0, 150).mapToObj(i -> "System.out.println(\"line " + i + "\");").collect(Collectors.joining("\n"));
        herald.agent.reply("Here you go:\n```java\n" + code + "\n```\nThat is all.");

        discord.message("5401", "dm-1", null, "u1", "print 150 lines");

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").stream().anyMatch(p -> p.content().endsWith("That is all.")));
        List<FakeDiscord.Post> parts = discord.postsTo("dm-1");
        assertThat(parts).hasSize(3);
        for (FakeDiscord.Post part : parts) {
            assertThat(part.content().length()).isLessThanOrEqualTo(DiscordAdapter.MAX_TEXT);
            long fences = part.content().lines().filter(l -> l.strip().startsWith("```")).count();
            assertThat(fences).as("every part opens and closes its own code block").isEven().isPositive();
        }
        String joined = parts.stream().map(FakeDiscord.Post::content).collect(Collectors.joining("\n"));
        assertThat(joined).contains("line 0\"", "line 149\"", "That is all.");
        assertThat(parts.getFirst().replyTo()).isEqualTo("5401");
        assertThat(parts.subList(1, parts.size())).extracting(FakeDiscord.Post::replyTo).containsOnlyNulls();
    }

    @Test
    void theSameMessageDeliveredTwice_getsOneTurnAndOneReply() {
        herald.start();

        discord.message("5501", "dm-1", null, "u1", "only once please");
        discord.message("5501", "dm-1", null, "u1", "only once please");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(herald.agent.calls()).hasSize(1);
        assertThat(herald.turns()).hasSize(1);
    }

    @Test
    void aUserOutsideTheAllowlist_getsNoTurnAndNoReply() {
        herald.start();

        discord.message("5601", "dm-9", null, "intruder", "let me in");
        discord.message("5602", "dm-1", null, "u1", "and me?");

        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.postsTo("dm-9")).isEmpty();
        assertThat(herald.agent.messages()).containsExactly("and me?");
        assertThat(herald.turns()).extracting(TurnRecord::platformMessageId).containsExactly("5602");
    }

    @Test
    void messagesFromTheBotItselfAndFromOtherBots_areIgnored() {
        herald.start();
        var own = discord.messageJson("5701", "dm-1", null, FakeDiscord.BOT_ID, "my own reply");
        var otherBot = discord.messageJson("5702", "dm-1", null, "u1", "beep");
        ((com.fasterxml.jackson.databind.node.ObjectNode) otherBot.get("author")).put("bot", true);

        discord.dispatch("MESSAGE_CREATE", own);
        discord.dispatch("MESSAGE_CREATE", otherBot);
        discord.message("5703", "dm-1", null, "u2", "a person");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(herald.agent.messages()).containsExactly("a person");
    }

    @Test
    void aRateLimitedSend_isRetriedAfterDiscordsRetryAfter_andArrivesOnce() {
        herald.start();
        discord.rateLimitNext.add(0.05);

        discord.message("5801", "dm-1", null, "u1", "busy day");

        await().atMost(WAIT).during(SETTLE).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.messagePostAttempts.get()).isEqualTo(2);
    }

    @Test
    void whileATurnRuns_theChannelShowsTyping() {
        herald.start();
        ScriptedAgent.Hold hold = herald.agent.hold("done thinking");

        discord.message("5901", "dm-1", null, "u1", "think hard");

        hold.awaitArrival(WAIT);
        await().atMost(WAIT).until(() -> discord.typing.contains("dm-1"));
        hold.release();
        await().atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
    }
}
