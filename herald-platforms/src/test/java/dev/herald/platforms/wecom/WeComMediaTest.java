package dev.herald.platforms.wecom;

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
 * Media both ways: a member's image is stored as its MediaId and fetched through media/get on api_base (its PicUrl, here a
 * link-local address, is never followed); a file the agent sends is uploaded through media/upload and sent by its
 * media_id as an image or a file, after its caption.
 */
class WeComMediaTest {
    static final String ZHANG = WeComCallbackTest.ZHANG;
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};

    @TempDir
    Path workspace;

    final FakeWeCom wecom = new FakeWeCom();
    @RegisterExtension
    final GatewayFixture herald = wecom.herald(ZHANG);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void anImage_isStoredAsItsMediaId_andFetchedThroughMediaGet_notItsPicUrl() throws Exception {
        wecom.media.put("1G6nrLmr5EC3MMb_-zK1dDdzmd0p7cNliYu9V5w7o8K0", new Object[] {JPEG, "image/jpeg"});
        herald.start();

        wecom.post(FakeWeCom.image(ZHANG, "7340005541298200001", "1G6nrLmr5EC3MMb_-zK1dDdzmd0p7cNliYu9V5w7o8K0"));
        await().atMost(WAIT).until(() -> wecom.sentTo(ZHANG).size() == 1);

        TurnRecord turn = herald.turns().getFirst();
        MessageEvent.MediaRef ref = turn.attachments().getFirst();
        assertThat(ref.kind()).isEqualTo("photo");
        assertThat(ref.ref()).isEqualTo("1G6nrLmr5EC3MMb_-zK1dDdzmd0p7cNliYu9V5w7o8K0");
        var fetched = wecom.fetcher().fetch(ref, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(JPEG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThat(wecom.mediaGets).containsExactly("1G6nrLmr5EC3MMb_-zK1dDdzmd0p7cNliYu9V5w7o8K0");
        assertThatThrownBy(() -> wecom.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("limit");
    }

    @Test
    void anUnknownMediaId_isWeComsErrcode_andAnExpiredToken_isFetchedAgain() throws Exception {
        wecom.media.put("MEDIA_OK", new Object[] {JPEG, "image/jpeg"});
        herald.start();
        assertThatThrownBy(() -> wecom.fetcher().fetch(new MessageEvent.MediaRef("photo", "MEDIA_GONE", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("errcode 40007");
        assertThatThrownBy(() -> wecom.fetcher().fetch(new MessageEvent.MediaRef("photo", "../../etc", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("no usable MediaId");

        wecom.expireTokens();
        assertThat(wecom.fetcher().fetch(new MessageEvent.MediaRef("photo", "MEDIA_OK", null), 1024).bytes()).isEqualTo(JPEG);
        assertThat(wecom.tokenCalls.get()).isEqualTo(2);
    }

    @Test
    void agentFiles_areUploaded_andSentByMediaId_asAFileAndAnImage_afterTheText() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", null),
                file("chart.png", JPEG, "image/png", "the chart"));

        wecom.post(FakeWeCom.text(ZHANG, "7340005541298200002", "summarize it"));
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var sent = wecom.sentTo(ZHANG);
        assertThat(sent).extracting(FakeWeCom.Sent::type).containsExactly("markdown", "file", "markdown", "image");
        assertThat(sent.get(0).content()).isEqualTo("Here is the summary.");
        assertThat(wecom.uploads).hasSize(2);
        assertThat(wecom.uploads.get(0).type()).isEqualTo("file");
        assertThat(wecom.uploads.get(0).fileName()).isEqualTo("summary.pdf");
        assertThat(wecom.uploads.get(0).bytes()).isEqualTo(pdf);
        assertThat(sent.get(1).body().path("file").path("media_id").asText()).isEqualTo(wecom.uploads.get(0).id());
        assertThat(sent.get(2).content()).as("the caption").isEqualTo("the chart");
        assertThat(wecom.uploads.get(1).type()).isEqualTo("image");
        assertThat(sent.get(3).body().path("image").path("media_id").asText()).isEqualTo(wecom.uploads.get(1).id());
    }

    @Test
    void mediaTypes_followWhatWeComTakes() {
        assertThat(WeComAdapter.mediaType("image/png", 1000)).isEqualTo("image");
        assertThat(WeComAdapter.mediaType("image/png", WeComAdapter.MAX_IMAGE_BYTES + 1)).isEqualTo("file");
        assertThat(WeComAdapter.mediaType("image/gif", 1000)).isEqualTo("file");
        assertThat(WeComAdapter.mediaType("video/mp4", 1000)).isEqualTo("video");
        assertThat(WeComAdapter.mediaType("audio/amr", 1000)).isEqualTo("voice");
        assertThat(WeComAdapter.mediaType("audio/ogg", 1000)).isEqualTo("file");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
