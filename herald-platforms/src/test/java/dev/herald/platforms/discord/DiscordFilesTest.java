package dev.herald.platforms.discord;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the agent sends reach a Discord channel as message attachments after the reply's text, with the caption as the
 * message's content; a file over Discord's limit is a line saying so; a resend of an upload whose answer was lost carries
 * the same enforced nonce, so the channel has the file once.
 */
class DiscordFilesTest {
    @TempDir
    Path workspace;

    final FakeDiscord discord = new FakeDiscord();
    @RegisterExtension
    final GatewayFixture herald = discord.herald("u1");

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void sendFile_withCaption_isAnAttachmentAfterTheText_withItsCaptionAsContent() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", "Q3 summary"));

        discord.message("7401", "dm-1", null, "u1", "summarize it");
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        List<FakeDiscord.Post> posts = discord.postsTo("dm-1");
        assertThat(posts).extracting(FakeDiscord.Post::content).containsExactly("Here is the summary.", "Q3 summary");
        assertThat(discord.uploads).singleElement().satisfies(u -> {
            assertThat(u.messageId()).as("attached to the second message").isEqualTo(posts.get(1).id());
            assertThat(u.fileName()).isEqualTo("summary.pdf");
            assertThat(u.contentType()).isEqualTo("application/pdf");
            assertThat(u.bytes()).isEqualTo(pdf);
        });
        assertThat(posts.get(1).body().path("enforce_nonce").asBoolean()).isTrue();
        assertThat(posts.get(1).body().path("nonce").asText()).isNotEqualTo(posts.get(0).body().path("nonce").asText());
        assertThat(posts.get(1).body().path("allowed_mentions").path("parse")).as("a caption pings nobody").isEmpty();
        assertThat(turnOf("summarize it").replyMessageId()).isEqualTo(posts.get(1).id());
    }

    @Test
    void sendFile_overDiscordsLimit_theUserIsToldInstead_andNothingIsUploaded() throws Exception {
        herald.start();
        OutboundFile small = file("big.zip", new byte[100], "application/zip", null);
        herald.agent.replyWithFiles("", new OutboundFile(small.path(), small.name(), small.mimeType(), 11L * 1024 * 1024, null));

        discord.message("7402", "dm-1", null, "u1", "send the archive");
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send the archive").state() == TurnState.DELIVERED);

        assertThat(discord.uploads).isEmpty();
        assertThat(discord.postsTo("dm-1")).extracting(FakeDiscord.Post::content)
                .containsExactly("(The file big.zip was not sent: it is 11.0 MB, and discord takes at most 10.0 MB.)");
    }

    @Test
    void sendFile_crashBetweenUploadAndAnswer_isResentWithTheSameNonce_andTheChannelHasTheFileOnce() throws Exception {
        byte[] pdf = "%PDF-1.4 once".getBytes(StandardCharsets.UTF_8);
        discord.answerDelay = Duration.ofMillis(100);
        herald.start();
        herald.agent.replyWithFiles("Attached.", file("once.pdf", pdf, "application/pdf", null));

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 1, 1)) { // the text goes; the file's answer is lost
            discord.message("7403", "dm-1", null, "u1", "send it");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(discord.uploads).as("Discord has the file").hasSize(1);
        herald.crash();
        herald.start();

        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send it").state() == TurnState.DELIVERED);
        assertThat(discord.uploads).as("one file in the channel").singleElement().satisfies(u -> assertThat(u.bytes()).isEqualTo(pdf));
        assertThat(discord.postsTo("dm-1")).extracting(FakeDiscord.Post::content).containsExactly("Attached.", "");
        assertThat(discord.nonceReplays).as("the resent upload was answered with the first message").hasValue(1);
        assertThat(herald.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
