package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.StreamingToolAgent;
import dev.herald.platforms.common.EditedDrafts;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Replies streamed on Discord: one message posted at the first text and edited as the turn writes, then the answer. */
class DiscordStreamingTest {
    private static final Duration SETTLE = Duration.ofMillis(300);

    final FakeDiscord discord = new FakeDiscord();
    Duration editInterval = Duration.ofMillis(50);
    boolean streaming = true;
    @RegisterExtension
    final GatewayFixture herald = discord.herald(() -> FakeDiscord.timing(editInterval), () -> streaming, "u1");

    @Test
    void aReplyBeingWritten_isOneMessageEditedAsItGrows_andTheAnswerReplacesItWithoutASecondMessage() {
        // each piece comes later than the edit interval after the one before, so each is shown
        herald.agentOverride(StreamingToolAgent.writing(Duration.ofMillis(80), "Hello", " there,", " world.")).start();

        discord.message("6301", "dm-1", null, "u1", "say hello");

        await().atMost(WAIT).until(() -> discord.edits.size() == 3);
        await().during(SETTLE).atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1 && discord.edits.size() == 3);
        FakeDiscord.Post draft = discord.postsTo("dm-1").getFirst();
        assertThat(draft.content()).isEqualTo("Hello" + EditedDrafts.CURSOR);
        assertThat(discord.edits).allSatisfy(e -> assertThat(e.messageId()).isEqualTo(draft.id()))
                .extracting(e -> e.body().path("content").asText())
                .containsExactly("Hello there," + EditedDrafts.CURSOR, "Hello there, world." + EditedDrafts.CURSOR, "Hello there, world.");
        assertThat(discord.shown(draft.id()).path("content").asText()).isEqualTo("Hello there, world.");
    }

    @Test
    void editsAreHeldToTheInterval_soTextWrittenFasterIsShownAtTheNextEditOrWithTheAnswer() {
        editInterval = Duration.ofHours(1);
        herald.agentOverride(StreamingToolAgent.writing(Duration.ZERO, "one ", "two ", "three ", "four ", "five")).start();

        discord.message("6401", "dm-1", null, "u1", "count to five");

        await().atMost(WAIT).until(() -> discord.edits.size() == 1);
        await().during(SETTLE).atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1 && discord.edits.size() == 1);
        assertThat(discord.postsTo("dm-1").getFirst().content()).isEqualTo("one" + EditedDrafts.CURSOR);
        assertThat(discord.edits.getFirst().body().path("content").asText()).as("only the answer edits it").isEqualTo("one two three four five");
    }

    @Test
    void withStreamingOff_theAnswerIsOneMessage_replyingToTheQuestion_andNothingIsEdited() {
        streaming = false;
        herald.agentOverride(StreamingToolAgent.writing(Duration.ZERO, "quiet ", "answer")).start();

        discord.message("6501", "dm-1", null, "u1", "answer quietly");

        await().during(SETTLE).atMost(WAIT).until(() -> discord.postsTo("dm-1").size() == 1);
        assertThat(discord.postsTo("dm-1").getFirst().content()).isEqualTo("quiet answer");
        assertThat(discord.postsTo("dm-1").getFirst().replyTo()).isEqualTo("6501");
        assertThat(discord.edits).isEmpty();
        assertThat(herald.current.capabilities().streaming()).isFalse();
    }
}
