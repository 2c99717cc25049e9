package dev.herald.platforms.mattermost;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
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
 * Files both ways: a file the agent sends is uploaded into the channel ({@code POST /files}) and posted with its caption,
 * in the reply's thread; a post's files reach the turn as references the adapter fetches with the bot's token.
 */
class MattermostFilesTest {
    @TempDir
    Path workspace;

    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void sendFile_isUploadedAndPostedInTheThread_afterTheText_withItsCaption() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        Path p = workspace.resolve("summary.pdf");
        Files.write(p, pdf);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.",
                new OutboundFile(p.toRealPath().toString(), "summary.pdf", "application/pdf", pdf.length, "Q3 **summary**"));
        var root = mm.say(ALICE, FakeMattermost.TOWN_SQUARE, "a thread");

        mm.say(ALICE, FakeMattermost.TOWN_SQUARE, "@herald summarize it", root.path("id").asText());
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var posts = mm.botPosts(FakeMattermost.TOWN_SQUARE);
        assertThat(posts).extracting(x -> x.path("message").asText()).containsExactly("Here is the summary.", "Q3 **summary**");
        assertThat(posts).allSatisfy(x -> assertThat(x.path("root_id").asText()).isEqualTo(root.path("id").asText()));
        String fileId = posts.get(1).path("file_ids").path(0).asText();
        assertThat(mm.files.get(fileId)).satisfies(f -> {
            assertThat(f.name()).isEqualTo("summary.pdf");
            assertThat(f.bytes()).isEqualTo(pdf);
            assertThat(f.channelId()).isEqualTo(FakeMattermost.TOWN_SQUARE);
        });
    }

    @Test
    void aPostsFile_reachesTheTurnAsAReference_andIsFetchedWithTheBotsToken() throws Exception {
        herald.start();
        MattermostAdapter adapter = (MattermostAdapter) herald.current;
        String dm = mm.dm(ALICE);
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
        String fileId = mm.upload(ALICE, dm, "cat.png", "image/png", png);

        mm.sayWithFiles(ALICE, dm, "what is this?", fileId);
        await().atMost(WAIT).until(() -> mm.botPosts(dm).size() == 1);

        MessageEvent.MediaRef ref = herald.agent.calls().getFirst().attachments().getFirst();
        assertThat(ref.ref()).isEqualTo(fileId);
        assertThat(ref.mimeType()).isEqualTo("image/png");
        assertThat(ref.name()).isEqualTo("cat.png");
        MediaFetcher.Fetched fetched = adapter.fetch(ref, 1024);
        assertThat(fetched.bytes()).isEqualTo(png);
        assertThat(fetched.mimeType()).isEqualTo("image/png");
    }
}
