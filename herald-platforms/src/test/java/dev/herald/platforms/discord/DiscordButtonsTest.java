package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.gateway.StopKind;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.StreamingToolAgent;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Approval questions as Discord buttons, end to end: the agent asks to run a tool, the question arrives with three
 * buttons, a press is an interaction the gateway answers as the presser's command, and the question is edited to show
 * who decided.
 */
class DiscordButtonsTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeDiscord discord = new FakeDiscord();
    final StreamingToolAgent agent = StreamingToolAgent.askingApproval("Let me ", "clean up.");
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1", "u2").agentOverride(agent);

    @Test
    void aPressedApproveButton_runsTheToolOnce_andTheQuestionShowsWhoApproved_withoutButtons() {
        herald.start();
        discord.message("6001", "dm-1", null, "u1", "clean the build");
        FakeDiscord.Post question = question("dm-1");

        assertThat(question.body().path("components").path(0).path("components").findValuesAsText("custom_id"))
                .containsExactly("herald:/approve", "herald:/approve always", "herald:/deny");
        String press = discord.press(question.id(), null, "u1", "herald:/approve");

        await().atMost(WAIT).until(() -> agent.toolRuns.get() == 1 && finalShown("dm-1"));
        assertThat(discord.callbacksTo(press)).singleElement().satisfies(c -> {
            assertThat(c.type()).as("UPDATE_MESSAGE").isEqualTo(7);
            assertThat(c.content()).contains("shell").contains("rm -rf build").endsWith("\u2705 Approved by user-u1")
                    .doesNotContain("Reply /approve");
        });
        assertThat(discord.shown(question.id()).path("content").asText()).endsWith("\u2705 Approved by user-u1");
        assertThat(discord.shown(question.id()).path("components")).as("the buttons are gone").isEmpty();
        assertThat(discord.postsTo("dm-1")).as("the draft (now the answer) and the question; no separate confirmation").hasSize(2);
    }

    @Test
    void aButtonPressedTwice_decidesOnce_andAPressRedeliveredAfterARestart_isNotAnsweredAgain() {
        herald.start();
        discord.message("6101", "dm-1", null, "u1", "clean the build");
        FakeDiscord.Post question = question("dm-1");

        String first = discord.press(question.id(), null, "u1", "herald:/approve");
        String second = discord.press(question.id(), null, "u1", "herald:/deny");

        await().atMost(WAIT).until(() -> discord.callbacksTo(second).size() == 1 && finalShown("dm-1"));
        assertThat(discord.callbacksTo(first)).singleElement().extracting(FakeDiscord.Callback::type).isEqualTo(7);
        assertThat(discord.callbacksTo(second)).singleElement().satisfies(c -> {
            assertThat(c.ephemeral()).as("told to the presser alone").isTrue();
            assertThat(c.content()).isEqualTo(DiscordPresses.ALREADY_ANSWERED);
        });
        assertThat(agent.toolRuns).hasValue(1);
        assertThat(discord.shown(question.id()).path("content").asText()).endsWith("\u2705 Approved by user-u1");

        herald.stop(StopKind.RESTART);
        herald.restart();
        int attempts = discord.callbackAttempts.size();
        int posts = discord.posts.size();
        discord.press(discord.interactionJson(first, question.id(), null, "u1", "herald:/approve"));

        await().atMost(WAIT).during(SETTLE).until(() -> discord.callbackAttempts.size() == attempts && discord.posts.size() == posts);
        assertThat(agent.toolRuns).hasValue(1);
        assertThat(agent.decisions).hasSize(1);
    }

    @Test
    void aPressBySomeoneNotAllowed_decidesNothing_andTheQuestionWaitsForItsOwner() {
        herald.start();
        discord.message("6201", "general-1", FakeDiscord.GUILD, "u1", "<@" + FakeDiscord.BOT_ID + "> clean the build");
        FakeDiscord.Post question = question("general-1");

        String intruder = discord.press(question.id(), FakeDiscord.GUILD, "intruder", "herald:/approve");
        String otherUser = discord.press(question.id(), FakeDiscord.GUILD, "u2", "herald:/approve");
        String forged = discord.press(question.id(), FakeDiscord.GUILD, "u1", "herald:/restart");
        await().atMost(WAIT).until(() -> discord.callbacksTo(otherUser).size() == 1);

        assertThat(discord.callbacksTo(intruder)).singleElement().satisfies(c -> {
            assertThat(c.ephemeral()).isTrue();
            assertThat(c.content()).isEqualTo(DiscordPresses.NOT_ALLOWED);
        });
        assertThat(discord.callbacksTo(otherUser)).as("u2's own session has nothing waiting").singleElement().satisfies(c -> {
            assertThat(c.ephemeral()).isTrue();
            assertThat(c.content()).isEqualTo("Nothing is waiting for approval.");
        });
        assertThat(discord.shown(question.id()).path("components")).as("the question is still open").isNotEmpty();
        assertThat(agent.toolRuns).hasValue(0);

        String owner = discord.press(question.id(), FakeDiscord.GUILD, "u1", "herald:/deny");

        await().atMost(WAIT).until(() -> finalShown("general-1"));
        assertThat(discord.callbacksTo(owner)).singleElement().extracting(FakeDiscord.Callback::content).asString()
                .endsWith("\u274c Denied by user-u1");
        assertThat(agent.toolRuns).hasValue(0);
        assertThat(agent.decisions).hasSize(1);
        assertThat(discord.callbackAttempts).as("a button Herald never made is ignored (it came before the owner's press)")
                .doesNotContain(forged);
    }

    /** The approval question posted in {@code channel}: the message with buttons. */
    private FakeDiscord.Post question(String channel) {
        await().atMost(WAIT).until(() -> withButtons(channel).isPresent());
        return withButtons(channel).orElseThrow();
    }

    private Optional<FakeDiscord.Post> withButtons(String channel) {
        return discord.postsTo(channel).stream().filter(p -> p.body().path("components").size() > 0).findFirst();
    }

    /** Whether the turn's final answer is shown in {@code channel}. */
    private boolean finalShown(String channel) {
        return discord.postsTo(channel).stream().map(p -> discord.shown(p.id())).map(m -> m.path("content").asText())
                .anyMatch(t -> t.equals(StreamingToolAgent.DONE) || t.equals(StreamingToolAgent.NOT_RUN));
    }

}
