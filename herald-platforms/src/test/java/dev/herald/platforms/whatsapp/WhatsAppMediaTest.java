package dev.herald.platforms.whatsapp;

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
 * Media both ways: a photo a person sends is stored as a reference to its media id and fetched in two steps (the id's
 * URL, then the URL with the token), only from Meta's hosts or api_base's; a file the agent sends is uploaded to
 * {@code /media} and sent by its id, as an image or a document.
 */
class WhatsAppMediaTest {
    static final String ALICE = WhatsAppWebhookTest.ALICE;
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};

    @TempDir
    Path workspace;

    final FakeWhatsApp meta = new FakeWhatsApp();
    @RegisterExtension
    final GatewayFixture herald = meta.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aPhoto_isStoredAsItsMediaId_andFetchedThroughTheMediaUrl_withTheToken() throws Exception {
        meta.media.put("1037543291543636", new Object[] {JPEG, "image/jpeg"});
        herald.start();

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.image(ALICE, "wamid.HBgLIMG1", "1037543291543636", "what is this?")));
        await().atMost(WAIT).until(() -> meta.sentTo(ALICE).size() == 1);

        assertThat(meta.sentTo(ALICE).getFirst().text()).isEqualTo("echo: what is this?\n[attachment: photo (image/jpeg), ref 1037543291543636]");
        MessageEvent.MediaRef ref = turnOf("what is this?").attachments().getFirst();
        var fetched = meta.fetcher().fetch(ref, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(JPEG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThat(meta.mediaDownloads).containsExactly("1037543291543636 auth=Bearer " + FakeWhatsApp.TOKEN);
        assertThatThrownBy(() -> meta.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("over the 4-byte limit");
    }

    @Test
    void aMediaUrlOnAnotherHost_isNotFetched_andTheTokenNotSent() throws Exception {
        meta.media.put("555", new Object[] {JPEG, "image/jpeg"});
        herald.start();
        var ref = new MessageEvent.MediaRef("photo", "555", "image/jpeg");

        meta.mediaUrlOverride = "http://localhost:" + meta.port() + "/media/555"; // the fake itself, but not api_base's host
        assertThatThrownBy(() -> meta.fetcher().fetch(ref, 1024)).isInstanceOf(IOException.class)
                .hasMessageContaining("not on Meta's media hosts").hasMessageNotContaining(FakeWhatsApp.TOKEN);
        meta.mediaUrlOverride = "https://169.254.169.254/latest/meta-data/";
        assertThatThrownBy(() -> meta.fetcher().fetch(ref, 1024)).isInstanceOf(IOException.class).hasMessageContaining("not on Meta's media hosts");
        assertThatThrownBy(() -> meta.fetcher().fetch(new MessageEvent.MediaRef("photo", "../../me", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("no usable media id");
        assertThat(meta.mediaDownloads).isEmpty();
        assertThat(GraphApi.metaHost("lookaside.fbsbx.com")).isTrue();
        assertThat(GraphApi.metaHost("evilfbsbx.com")).isFalse();
    }

    @Test
    void sendFile_aPdf_isUploadedAndSentAsADocument_afterTheText_andAPng_asAnImageWithItsCaption() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", null),
                file("chart.png", JPEG, "image/png", "the *chart*"));

        meta.post(FakeWhatsApp.notification(ALICE, "Alice", FakeWhatsApp.text(ALICE, "wamid.HBgLDOC1", "summarize it")));
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var sent = meta.sentTo(ALICE);
        assertThat(sent).extracting(FakeWhatsApp.Sent::type).containsExactly("text", "document", "image");
        assertThat(sent.get(0).text()).isEqualTo("Here is the summary.");
        assertThat(meta.uploads).hasSize(2);
        FakeWhatsApp.Upload doc = meta.uploads.get(0);
        assertThat(doc.bytes()).isEqualTo(pdf);
        assertThat(doc.type()).isEqualTo("application/pdf");
        assertThat(doc.fileName()).isEqualTo("summary.pdf");
        assertThat(sent.get(1).body().path("document").path("id").asText()).isEqualTo(doc.id());
        assertThat(sent.get(1).body().path("document").path("filename").asText()).isEqualTo("summary.pdf");
        assertThat(sent.get(2).body().path("image").path("id").asText()).isEqualTo(meta.uploads.get(1).id());
        assertThat(sent.get(2).body().path("image").path("caption").asText()).as("the caption, in WhatsApp's formatting").isEqualTo("the _chart_");
    }

    @Test
    void mediaTypes_followWhatWhatsAppShows_andItsSizeLimits() {
        assertThat(WhatsAppAdapter.mediaType("image/png", 1000)).isEqualTo("image");
        assertThat(WhatsAppAdapter.mediaType("image/png", WhatsAppAdapter.MAX_IMAGE_BYTES + 1)).as("too big for an image").isEqualTo("document");
        assertThat(WhatsAppAdapter.mediaType("image/gif", 1000)).isEqualTo("document");
        assertThat(WhatsAppAdapter.mediaType("audio/ogg", 1000)).isEqualTo("audio");
        assertThat(WhatsAppAdapter.mediaType("video/mp4", WhatsAppAdapter.MAX_AUDIO_VIDEO_BYTES + 1)).isEqualTo("document");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
