package dev.herald.platforms.slack;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the agent sends are shared in the Slack thread by the external upload (upload URL, bytes, complete) after the
 * reply's text, with the caption as the file's message; a file over the limit is a line saying so; an upload URL
 * anywhere but Slack's file host (here: the fake's own loopback address) is not followed.
 */
class SlackFilesTest {
    @TempDir
    Path workspace;

    final FakeSlack slack = new FakeSlack();
    @RegisterExtension
    final GatewayFixture herald = slack.herald("U1");

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void sendFile_withCaption_isSharedInTheThreadAfterTheText_withTheCaptionAsItsComment() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", "Q3 *summary*"));
        String top = "1712000402.000100";

        slack.deliver(slack.message("C1", "channel", "U1", top, null, "<@" + FakeSlack.BOT_USER + "> summarize it"));
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        assertThat(slack.postsIn("C1", top)).extracting(FakeSlack.Post::text).containsExactly("Here is the summary.");
        assertThat(slack.files).singleElement().satisfies(f -> {
            assertThat(f.channel()).isEqualTo("C1");
            assertThat(f.threadTs()).as("in the thread the reply went to").isEqualTo(top);
            assertThat(f.comment()).as("the caption, in Slack's mrkdwn").isEqualTo("Q3 _summary_");
            assertThat(f.fileName()).isEqualTo("summary.pdf");
            assertThat(f.bytes()).isEqualTo(pdf);
        });
        assertThat(slack.uploadHits).singleElement().satisfies(u -> assertThat(u.authorization())
                .as("the bot token is not sent to the upload URL").isFalse());
    }

    @Test
    void sendFile_overTheLimit_theUserIsToldInstead_andNothingIsUploaded() throws Exception {
        herald.start();
        OutboundFile small = file("big.zip", new byte[100], "application/zip", null);
        herald.agent.replyWithFiles("", new OutboundFile(small.path(), small.name(), small.mimeType(), 200L * 1024 * 1024, null));

        slack.deliver(slack.message("D1", "im", "U1", "1712000403.000100", null, "send the archive"));
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send the archive").state() == TurnState.DELIVERED);

        assertThat(slack.uploadHits).isEmpty();
        assertThat(slack.files).isEmpty();
        assertThat(slack.postsIn("D1", null)).extracting(FakeSlack.Post::text)
                .containsExactly("(The file big.zip was not sent: it is 200.0 MB, and slack takes at most 100.0 MB.)");
    }

    @Test
    void sendFile_uploadUrlOnAnotherHost_isNotFollowed_andNothingIsUploaded() throws Exception {
        slack.uploadUrlTemplate = "http://localhost:" + slack.port() + "/upload/{id}"; // not the configured API host (127.0.0.1)
        herald.start();
        herald.agent.replyWithFiles("Attached.", file("a.pdf", "%PDF".getBytes(StandardCharsets.UTF_8), "application/pdf", null));

        slack.deliver(slack.message("D1", "im", "U1", "1712000404.000100", null, "send it"));
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send it").state() == TurnState.UNDELIVERABLE);

        assertThat(slack.uploadHits).as("no byte went to the other host").isEmpty();
        assertThat(slack.files).isEmpty();
        assertThat(turnOf("send it").deliveryError()).contains("no upload URL on Slack's file host (http://localhost)")
                .doesNotContain(FakeSlack.BOT_TOKEN);
    }
}
