package dev.herald.platforms.line;

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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Media both ways: an image or file a person sends is stored as a reference to its LINE message id and fetched from the
 * data API's content endpoint with the token (only there); an image the agent sends goes out as a LINE image message
 * whose https address (public_url) is Herald's signed link to the file, and without a public_url as a text line.
 */
class LineMediaTest {
    static final String ALICE = LineWebhookTest.ALICE;
    static final String PUBLIC = "https://herald.example.org";
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};

    @TempDir
    Path workspace;

    final FakeLine line = new FakeLine();
    @RegisterExtension
    final GatewayFixture herald = line.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void anImageAndAFile_areStoredAsTheirMessageIds_andFetchedFromTheDataApi_withTheToken() throws Exception {
        line.content.put("468789577898262530", new Object[] {JPEG, "image/jpeg"});
        line.content.put("468789577898262531", new Object[] {"%PDF-1.4 notes".getBytes(StandardCharsets.UTF_8), "application/pdf"});
        herald.start();

        line.post(FakeLine.body(line.media(ALICE, "01HZX4A1000000000000000001", "image", "468789577898262530", null)));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 1);
        line.post(FakeLine.body(line.media(ALICE, "01HZX4A1000000000000000002", "file", "468789577898262531", "notes.pdf")));
        await().atMost(WAIT).until(() -> herald.turns(TurnState.DELIVERED).size() == 2);

        MessageEvent.MediaRef photo = herald.turns().get(0).attachments().getFirst();
        MessageEvent.MediaRef doc = herald.turns().get(1).attachments().getFirst();
        assertThat(photo).extracting(MessageEvent.MediaRef::kind, MessageEvent.MediaRef::ref).containsExactly("photo", "468789577898262530");
        assertThat(doc).extracting(MessageEvent.MediaRef::kind, MessageEvent.MediaRef::name).containsExactly("document", "notes.pdf");
        var fetched = line.fetcher().fetch(photo, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(JPEG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThat(line.fetcher().fetch(doc, 1024 * 1024).bytes()).asString(StandardCharsets.UTF_8).isEqualTo("%PDF-1.4 notes");
        assertThat(line.contentDownloads).containsExactly("/v2/bot/message/468789577898262530/content auth=Bearer " + FakeLine.TOKEN,
                "/v2/bot/message/468789577898262531/content auth=Bearer " + FakeLine.TOKEN);
        assertThatThrownBy(() -> line.fetcher().fetch(photo, 4)).isInstanceOf(IOException.class).hasMessageContaining("4-byte limit");
        assertThatThrownBy(() -> line.fetcher().fetch(new MessageEvent.MediaRef("photo", "../../v2/bot/info", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("no usable LINE message id").hasMessageNotContaining(FakeLine.TOKEN);
    }

    @Test
    void anImageTheAgentSends_isALineImageMessage_fromHeraldsSignedLink_servingTheSameBytes() throws Exception {
        line.settings = line.settings.withPublicUrl(PUBLIC);
        herald.start();
        herald.agent.replyWithFiles("Here is the chart.", file("chart.png", JPEG, "image/png", "the *chart*"));

        line.post(FakeLine.body(line.text(ALICE, "01HZX4A1000000000000000003", "draw it")));
        await().atMost(WAIT).until(() -> turnOf("draw it").state() == TurnState.DELIVERED);

        var chat = line.chatWith(ALICE);
        assertThat(chat).extracting(FakeLine.Delivered::type).containsExactly("text", "text", "image");
        assertThat(chat.get(0)).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text).containsExactly("reply", "Here is the chart.");
        assertThat(chat.get(1)).extracting(FakeLine.Delivered::via, FakeLine.Delivered::text).containsExactly("push", "the chart");
        String url = chat.get(2).message().path("originalContentUrl").asText();
        assertThat(url).startsWith(PUBLIC + "/platforms/line/files?ref=");
        assertThat(chat.get(2).message().path("previewImageUrl").asText()).isEqualTo(url);

        String local = line.heraldBase() + url.substring(PUBLIC.length());
        try (HttpClient c = HttpClient.newHttpClient()) {
            HttpResponse<byte[]> got = c.send(HttpRequest.newBuilder(URI.create(local)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.body()).isEqualTo(JPEG);
            assertThat(got.headers().firstValue("content-type")).hasValue("image/png");
            HttpResponse<byte[]> forged = c.send(HttpRequest.newBuilder(URI.create(local.replaceFirst("sig=[0-9a-f]", "sig=x"))).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(forged.statusCode()).isEqualTo(404);
            HttpResponse<byte[]> other = c.send(HttpRequest.newBuilder(URI.create(local.replace("%3A0&", "%3A1&"))).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(other.statusCode()).as("another file's ref with this file's signature").isEqualTo(404);
        }
    }

    @Test
    void withoutAPublicUrl_aFileTheAgentSends_isATextLineSayingWhy() throws Exception {
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", "%PDF".getBytes(StandardCharsets.UTF_8), "application/pdf", null));

        line.post(FakeLine.body(line.text(ALICE, "01HZX4A1000000000000000004", "summarize it")));
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var chat = line.chatWith(ALICE);
        assertThat(chat).extracting(FakeLine.Delivered::type).containsExactly("text", "text");
        assertThat(chat.get(1).text()).contains("summary.pdf").contains("was not sent").contains("platforms.line.public_url");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
