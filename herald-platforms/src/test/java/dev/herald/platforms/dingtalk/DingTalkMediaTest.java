package dev.herald.platforms.dingtalk;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import dev.herald.core.platform.OutboundFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Files out: the agent's files are uploaded to media/upload and sent through the send API after their caption. Files
 * in: a picture is stored as a reference to its downloadCode and fetched in two steps (messageFiles/download with
 * the access token, then the downloadUrl, only from DingTalk's file hosts); the access token's cache follows
 * {@code expireIn} on the adapter's clock.
 */
class DingTalkMediaTest {
    private static final byte[] PNG = "\u0089PNG fake picture bytes".getBytes(StandardCharsets.ISO_8859_1);

    @TempDir
    Path workspace;

    final FakeDingTalk dingtalk = new FakeDingTalk();
    @RegisterExtension
    final GatewayFixture herald = dingtalk.herald("staff1");

    @Test
    void aPicture_isStoredByItsDownloadCode_andFetchedFromDingTalksFileHost() throws Exception {
        dingtalk.files.put("dl-code-1", PNG);
        herald.start();

        dingtalk.deliver(dingtalk.picture("p1", "staff1", "dl-code-1"));

        await().atMost(WAIT).until(() -> herald.turns().size() == 1);
        MessageEvent.MediaRef ref = herald.turns().getFirst().attachments().getFirst();
        assertThat(ref.kind()).isEqualTo("picture");
        assertThat(ref.ref()).isEqualTo("dl-code-1");
        DingTalkAdapter adapter = (DingTalkAdapter) herald.current;
        var fetched = adapter.fetch(ref, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(PNG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThatThrownBy(() -> adapter.fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("over the 4-byte limit");
    }

    @Test
    void theAgentsFiles_areUploaded_andSentAfterTheCaption_asAPictureOrAFile() throws Exception {
        herald.start();
        Path png = workspace.resolve("chart.png");
        Files.write(png, PNG);
        Path pdf = workspace.resolve("report.pdf");
        Files.write(pdf, "%PDF-1.4 report".getBytes(StandardCharsets.UTF_8));
        herald.agent.replyWithFiles("Here they are.", new OutboundFile(png.toRealPath().toString(), "chart.png", "image/png", PNG.length, null),
                new OutboundFile(pdf.toRealPath().toString(), "report.pdf", "application/pdf", 15, "the *report*"));

        dingtalk.deliver(dingtalk.dm("f1", "staff1", "send me the files", Instant.now().plusSeconds(3600)));

        await().atMost(WAIT).until(() -> dingtalk.sent.size() == 4);
        assertThat(dingtalk.uploads).extracting(FakeDingTalk.Upload::type, FakeDingTalk.Upload::fileName)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("image", "chart.png"), org.assertj.core.groups.Tuple.tuple("file", "report.pdf"));
        assertThat(dingtalk.uploads.getFirst().bytes()).isEqualTo(PNG);
        String picture = dingtalk.uploads.get(0).mediaId();
        String report = dingtalk.uploads.get(1).mediaId();
        assertThat(dingtalk.sent).extracting(FakeDingTalk.Sent::via, FakeDingTalk.Sent::type, FakeDingTalk.Sent::text).containsExactly(
                org.assertj.core.groups.Tuple.tuple("webhook", "markdown", "Here they are."),
                org.assertj.core.groups.Tuple.tuple("dm", "sampleImageMsg", picture),
                org.assertj.core.groups.Tuple.tuple("webhook", "markdown", "the *report*"),
                org.assertj.core.groups.Tuple.tuple("dm", "sampleFile", report + " report.pdf pdf"));
    }

    @Test
    void aDownloadUrlOnAnotherHost_isNotFetched() {
        dingtalk.files.put("dl-code-2", PNG);
        DingTalkAdapter adapter = new DingTalkAdapter(dingtalk.settings(), FakeDingTalk.timing(), Clock.systemUTC());
        MessageEvent.MediaRef ref = new MessageEvent.MediaRef("picture", "dl-code-2", null);

        dingtalk.downloadUrlTemplate = "http://localhost:" + dingtalk.port() + "/files/{code}"; // the fake, but not an allowed host
        assertThatThrownBy(() -> adapter.fetch(ref, 1024)).isInstanceOf(IOException.class).hasMessageContaining("is not one of the platform's file hosts");
        dingtalk.downloadUrlTemplate = "https://127.0.0.3/latest/meta-data/{code}";
        assertThatThrownBy(() -> adapter.fetch(ref, 1024)).isInstanceOf(IOException.class).hasMessageContaining("is not one of the platform's file hosts");
        assertThatThrownBy(() -> adapter.fetch(new MessageEvent.MediaRef("picture", "unknown-code", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("invalidDownloadCode").hasMessageNotContaining(FakeDingTalk.CLIENT_SECRET);
        adapter.close();
    }

    @Test
    void theAccessToken_isReusedUntilAMinuteBeforeItsExpireIn_thenFetchedAgain() throws Exception {
        dingtalk.expireIn = 600;
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        DingTalkApi api = new DingTalkApi(dingtalk.settings(), FakeDingTalk.timing(), clock);

        String first = api.token();
        now.set(now.get().plusSeconds(530));
        assertThat(api.token()).isEqualTo(first);
        now.set(now.get().plusSeconds(20)); // 550 s: less than a minute left
        assertThat(api.token()).isNotEqualTo(first);
        assertThat(dingtalk.tokensIssued).hasValue(2);
    }
}
