package dev.herald.platforms.bluebubbles;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files both ways: an attachment a person sends reaches the agent as a reference to its guid, fetched with the
 * password from the configured server's {@code /api/v1/attachment/<guid>/download} only (anything that is not a guid is
 * refused before a connection); a file the agent sends goes to {@code message/attachment} as multipart, after the
 * reply's text, its caption as a text after it.
 */
class BlueBubblesMediaTest {
    static final String ALICE = BlueBubblesWebhookTest.ALICE;
    static final String CHAT = FakeBlueBubbles.dmChat(ALICE);
    static final byte[] PDF = "%PDF-1.4\nQuarterly revenue: 42 million\n%%EOF\n".getBytes(StandardCharsets.UTF_8);
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};

    @TempDir
    Path tmp;

    final FakeBlueBubbles bb = new FakeBlueBubbles();
    @RegisterExtension
    final GatewayFixture herald = bb.herald(ALICE);

    @Test
    void anAttachment_reachesTheAgentAsAGuid_andIsFetchedFromTheServer() throws Exception {
        herald.start();
        var msg = bb.withAttachment(FakeBlueBubbles.dm(ALICE, "F11E-0001", "\uFFFCsummarize this"), "at_0_F11E-0001", "report.pdf",
                "application/pdf", PDF);

        assertThat(bb.post(FakeBlueBubbles.newMessage(msg))).isEqualTo(200);

        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        List<MessageEvent.MediaRef> media = herald.agent.calls().getFirst().attachments();
        assertThat(herald.agent.calls().getFirst().userMessage()).as("the attachment placeholder character is dropped").isEqualTo("summarize this");
        assertThat(media).singleElement().satisfies(r -> {
            assertThat(r.ref()).isEqualTo("at_0_F11E-0001");
            assertThat(r.kind()).isEqualTo("document");
            assertThat(r.name()).isEqualTo("report.pdf");
            assertThat(r.size()).isEqualTo(PDF.length);
        });
        var fetched = bb.fetcher().fetch(media.getFirst(), 1024);
        assertThat(fetched.bytes()).isEqualTo(PDF);
        assertThat(fetched.mimeType()).isEqualTo("application/pdf");
        assertThat(bb.downloads).containsExactly("at_0_F11E-0001");
        assertThatThrownBy(() -> bb.fetcher().fetch(media.getFirst(), 8)).isInstanceOf(IOException.class).hasMessageContaining("8-byte limit");
    }

    @Test
    void anythingButAnAttachmentGuid_isNotFetched_andThePasswordNotSent() {
        herald.start();
        for (String ref : List.of("http://127.0.0.1:1/api/v1/attachment/x/download", "https://127.0.0.3/latest/meta-data",
                "../../ping", "a/../../b", "file:///etc/passwd", "x y", "")) {
            assertThatThrownBy(() -> bb.fetcher().fetch(new MessageEvent.MediaRef("photo", ref.isEmpty() ? " " : ref, "image/png"), 1024))
                    .as(ref).isInstanceOf(IOException.class).hasMessageNotContaining(FakeBlueBubbles.PASSWORD);
        }
        assertThat(bb.downloads).isEmpty();
    }

    @Test
    void filesTheAgentSends_goAsMultipart_afterTheText_withTheirCaptions() throws Exception {
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", PDF, "application/pdf", null),
                file("chart.png", PNG, "image/png", "the **chart**"));

        bb.post(FakeBlueBubbles.newMessage(FakeBlueBubbles.dm(ALICE, "F11E-0002", "summarize it")));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);

        var sent = bb.sentTo(CHAT);
        assertThat(sent).extracting(FakeBlueBubbles.Call::kind).containsExactly("text", "attachment", "attachment", "text");
        assertThat(sent.get(0).text()).isEqualTo("Here is the summary.");
        assertThat(sent.get(1).fields()).containsEntry("name", "summary.pdf").containsEntry("chatGuid", CHAT).containsKey("tempGuid");
        assertThat(sent.get(1).file().bytes()).isEqualTo(PDF);
        assertThat(sent.get(1).file().contentType()).isEqualTo("application/pdf");
        assertThat(sent.get(2).file().bytes()).isEqualTo(PNG);
        assertThat(sent.get(3).text()).as("the caption, as plain text").isEqualTo("the chart");
        assertThat(sent.get(2).fields().get("tempGuid")).isNotEqualTo(sent.get(3).fields().get("tempGuid"));
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = tmp.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
