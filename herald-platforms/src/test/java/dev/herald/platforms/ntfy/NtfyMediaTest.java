package dev.herald.platforms.ntfy;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attachments both ways: a file a person attaches is stored as its URL and fetched only from the configured server (an
 * attachment URL on another host is refused without a request); a file the agent sends is PUT to the topic with its
 * name and caption.
 */
class NtfyMediaTest {
    static final String TOPIC = FakeNtfy.TOPIC;
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};

    @TempDir
    Path workspace;

    final FakeNtfy ntfy = new FakeNtfy();
    @RegisterExtension
    final GatewayFixture herald = ntfy.herald();

    @Test
    void anAttachment_isStoredAsItsUrl_andFetchedFromTheServer_withTheToken() throws Exception {
        herald.start();

        FakeNtfy.Message m = ntfy.userAttaches(TOPIC, "screenshot.png", "image/png", PNG, null);

        await().atMost(WAIT).until(() -> ntfy.byHerald(TOPIC).size() == 1);
        TurnRecord turn = herald.turns().getFirst();
        MessageEvent.MediaRef ref = turn.attachments().getFirst();
        assertThat(ref.kind()).isEqualTo("photo");
        assertThat(ref.name()).isEqualTo("screenshot.png");
        assertThat(turn.text()).as("ntfy's \"You received a file\" is not the person's text").doesNotContain("You received a file");
        var fetched = ntfy.fetcher().fetch(ref, 1024);
        assertThat(fetched.bytes()).isEqualTo(PNG);
        assertThat(fetched.mimeType()).isEqualTo("image/png");
        assertThat(ntfy.fileGets).containsExactly("/file/" + m.id() + ".png");
        assertThatThrownBy(() -> ntfy.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("limit");
    }

    @Test
    void anAttachmentOnAnotherHost_isNotFetched_andTheTokenNotSent() {
        herald.start();
        int port = java.net.URI.create(ntfy.baseUrl()).getPort();
        for (String url : new String[] {"http://localhost:" + port + "/file/x.png", "http://127.0.0.3/latest/meta-data/",
            "https://127.0.0.1:" + port + "/file/x.png", "not a url at all"}) {
            var ref = new MessageEvent.MediaRef("photo", url, "image/png");
            assertThatThrownBy(() -> ntfy.fetcher().fetch(ref, 1024)).as(url).isInstanceOf(IOException.class).hasMessageContaining("not fetched")
                    .hasMessageNotContaining(FakeNtfy.TOKEN);
        }
        assertThat(ntfy.fileGets).isEmpty();
    }

    @Test
    void agentFiles_arePutToTheTopic_withTheirNameAndCaption() throws Exception {
        byte[] pdf = "%PDF-1.4 the report".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here it is.", file("report.pdf", pdf, "application/pdf", "the report, as asked"));

        ntfy.userPublishes(TOPIC, "send me the report", null);
        await().atMost(WAIT).until(() -> herald.turns().stream().anyMatch(t -> t.state() == TurnState.DELIVERED));

        var mine = ntfy.byHerald(TOPIC);
        assertThat(mine).extracting(FakeNtfy.Message::text).containsExactly("Here it is.", "the report, as asked");
        FakeNtfy.Message file = mine.get(1);
        assertThat(file.file()).isEqualTo(pdf);
        assertThat(file.headers().get("filename")).isEqualTo("report.pdf");
        assertThat(file.json().path("attachment").path("name").asText()).isEqualTo("report.pdf");
        assertThat(herald.agent.calls()).as("the file came back on the stream with Herald's tag: not answered").hasSize(1);
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
