package dev.herald.platforms.feishu;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Media both ways: a user's image, file or post with an image is stored by message id and key and fetched through the
 * message resource API on the configured base; a file the agent sends is uploaded through /images or /files and sent by
 * its key as an image or file message, after its caption.
 */
class FeishuMediaTest {
    static final String ALICE = FeishuCallbackTest.ALICE;
    static final String DM = FeishuCallbackTest.DM;
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};

    @TempDir
    Path workspace;

    final FakeFeishu feishu = new FakeFeishu();
    @RegisterExtension
    final GatewayFixture herald = feishu.herald(ALICE);

    @Test
    void anImage_isFetchedThroughTheResourceApi_byMessageIdAndKey() throws Exception {
        String msg = "om_img00000000000000000000000001";
        String key = "img_v2_041b28e3-5680-48c2-9af2-497ace79333g";
        feishu.resources.put(msg + "/" + key, new Object[] {JPEG, "image/jpeg", "image"});
        herald.start();

        feishu.post(FakeFeishu.message("ev-m-1", msg, DM, "p2p", ALICE, "image", "{\"image_key\":\"" + key + "\"}"));
        await().atMost(WAIT).until(() -> feishu.sentTo(DM).size() == 1);

        MessageEvent.MediaRef ref = herald.turns().getFirst().attachments().getFirst();
        assertThat(ref.kind()).isEqualTo("photo");
        var fetched = feishu.fetcher().fetch(ref, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(JPEG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThat(feishu.resourceGets).containsExactly(msg + "/" + key);
        assertThatThrownBy(() -> feishu.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("limit");
    }

    @Test
    void aFileAndAPostWithAnImage_reachTheTurn_andAnInvalidToken_isFetchedAgain() throws Exception {
        byte[] pdf = "%PDF-1.4 report".getBytes(StandardCharsets.UTF_8);
        feishu.resources.put("om_file0000000000000000000000001/file_v2_abc", new Object[] {pdf, "application/pdf", "file"});
        herald.start();
        feishu.post(FakeFeishu.message("ev-m-2", "om_file0000000000000000000000001", DM, "p2p", ALICE, "file",
                "{\"file_key\":\"file_v2_abc\",\"file_name\":\"report.pdf\"}"));
        String post = LocalJsonServer.JSON.createObjectNode().put("title", "Look").set("content", LocalJsonServer.JSON.readTree(
                "[[{\"tag\":\"text\",\"text\":\"see \"},{\"tag\":\"a\",\"text\":\"this\",\"href\":\"https://example.com\"}],"
                        + "[{\"tag\":\"img\",\"image_key\":\"img_v2_post\"}]]")).toString();
        feishu.post(FakeFeishu.message("ev-m-3", "om_post0000000000000000000000001", DM, "p2p", ALICE, "post", post));
        await().atMost(WAIT).until(() -> herald.turns().size() == 2 && herald.turns().stream().allMatch(t -> t.state() == TurnState.DELIVERED));

        TurnRecord file = herald.turns().stream().filter(t -> !t.attachments().isEmpty() && t.text().isBlank()).findFirst().orElseThrow();
        assertThat(file.attachments().getFirst().name()).isEqualTo("report.pdf");
        TurnRecord withImage = herald.turns().stream().filter(t -> t.text().startsWith("Look")).findFirst().orElseThrow();
        assertThat(withImage.text()).isEqualTo("Look\nsee this (https://example.com)");
        assertThat(withImage.attachments()).extracting(MessageEvent.MediaRef::ref).containsExactly("image:om_post0000000000000000000000001:img_v2_post");

        feishu.expireTokens();
        assertThat(feishu.fetcher().fetch(file.attachments().getFirst(), 1024).bytes()).isEqualTo(pdf);
        assertThatThrownBy(() -> feishu.fetcher().fetch(new MessageEvent.MediaRef("photo", "image:om_x/../../etc:k", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("no usable message id");
    }

    @Test
    void agentFiles_areUploaded_andSentByKey_asAFileAndAnImage_afterTheText() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", null),
                file("chart.png", JPEG, "image/png", "the chart"));

        feishu.post(FakeFeishu.text("ev-m-4", "om_ask00000000000000000000000001", DM, "p2p", ALICE, "summarize it"));
        await().atMost(WAIT).until(() -> herald.turns().size() == 1 && herald.turns().getFirst().state() == TurnState.DELIVERED);

        var sent = feishu.sentTo(DM);
        assertThat(sent).extracting(FakeFeishu.Sent::type).containsExactly("post", "file", "post", "image");
        assertThat(sent.get(0).text()).isEqualTo("Here is the summary.");
        assertThat(feishu.uploads).hasSize(2);
        assertThat(feishu.uploads.get(0).fileType()).isEqualTo("pdf");
        assertThat(feishu.uploads.get(0).fileName()).isEqualTo("summary.pdf");
        assertThat(feishu.uploads.get(0).bytes()).isEqualTo(pdf);
        assertThat(sent.get(1).content().path("file_key").asText()).isEqualTo(feishu.uploads.get(0).key());
        assertThat(sent.get(2).text()).as("the caption").isEqualTo("the chart");
        assertThat(feishu.uploads.get(1).kind()).isEqualTo("image");
        assertThat(sent.get(3).content().path("image_key").asText()).isEqualTo(feishu.uploads.get(1).key());
    }

    @Test
    void fileTypes_followWhatTheUploadTakes() {
        assertThat(FeishuAdapter.fileType("application/pdf", "a.pdf")).isEqualTo("pdf");
        assertThat(FeishuAdapter.fileType("video/mp4", "a.mp4")).isEqualTo("mp4");
        assertThat(FeishuAdapter.fileType("application/octet-stream", "notes.docx")).isEqualTo("doc");
        assertThat(FeishuAdapter.fileType("text/plain", "a.txt")).isEqualTo("stream");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
