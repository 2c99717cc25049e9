package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.CrashPoints;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.gateway.Invariant;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the agent sends reach a Telegram chat through the outbox as parts of the reply: a document with its caption, an
 * image as a photo, and a file over Telegram's limit as a line saying so; a send cut by a crash goes out once after it.
 */
class TelegramFilesTest {
    private static final String TOKEN = "4242:fake-secret-token";
    private static final long USER = 100;
    static final byte[] PNG = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==");

    @TempDir
    Path workspace;

    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toString(), name, type, bytes.length, caption);
    }

    private TurnRecord turnOf(String text) {
        return h.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void sendFile_documentAndImage_reachTheChatAsDocumentWithCaptionAndPhoto_afterTheText() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        h.start();
        h.agent.replyWithFiles("Here is the summary.", file("summary.pdf", pdf, "application/pdf", "Q3 summary"),
                file("chart.png", PNG, "image/png", null));

        fake.userSays(USER, "summarize and chart it");
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("summarize and chart it").state() == TurnState.DELIVERED);

        assertThat(fake.calls("sendMessage")).extracting(c -> c.body().path("text").asText()).containsExactly("Here is the summary.");
        List<FakeBotApi.Upload> uploads = fake.uploads();
        assertThat(uploads).extracting(FakeBotApi.Upload::method).containsExactly("sendDocument", "sendPhoto");
        assertThat(uploads.get(0).fileName()).isEqualTo("summary.pdf");
        assertThat(uploads.get(0).contentType()).isEqualTo("application/pdf");
        assertThat(uploads.get(0).bytes()).isEqualTo(pdf);
        assertThat(uploads.get(0).caption()).isEqualTo("Q3 summary");
        assertThat(uploads.get(0).chatId()).isEqualTo(Long.toString(USER));
        assertThat(uploads.get(1).bytes()).isEqualTo(PNG);
        assertThat(uploads.get(1).caption()).isNull();
    }

    @Test
    void sendFile_overTelegramsLimit_theUserIsToldInstead_andNothingIsUploaded() throws Exception {
        h.start();
        OutboundFile small = file("big.zip", new byte[100], "application/zip", null);
        OutboundFile big = new OutboundFile(small.path(), small.name(), small.mimeType(), 60_000_000, null);
        h.agent.replyWithFiles("", big);

        fake.userSays(USER, "send the archive");
        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send the archive").state() == TurnState.DELIVERED);

        assertThat(fake.uploads()).isEmpty();
        assertThat(fake.calls("sendMessage")).extracting(c -> c.body().path("text").asText())
                .containsExactly("(The file big.zip was not sent: it is 57.2 MB, and telegram takes at most 47.7 MB.)");
    }

    @Test
    void sendFile_crashAfterTheTextWasHandedOver_theFileIsSentOnceAfterTheRestart() throws Exception {
        h.skipCheck(Invariant.ONE_FINAL_REPLY_PER_TURN, "Telegram has no idempotency key: the text part in doubt after the crash "
                + "reaches the chat twice by design (at least once)");
        byte[] pdf = "%PDF-1.4 once".getBytes(StandardCharsets.UTF_8);
        h.start();
        h.agent.replyWithFiles("Attached.", file("once.pdf", pdf, "application/pdf", null));

        try (CrashPoints.Injection crash = CrashPoints.failAt(CrashPoints.AFTER_SEND, 0, 1)) { // the text is sent, its answer not recorded
            fake.userSays(USER, "send it");
            await().atMost(WAIT).until(crash::fired);
        }
        assertThat(fake.uploads()).as("the file part was not reached before the crash").isEmpty();
        assertThat(turnOf("send it").replyFiles()).extracting(OutboundFile::name).containsExactly("once.pdf");
        h.crash();
        h.start();

        await().atMost(WAIT).ignoreExceptions().until(() -> turnOf("send it").state() == TurnState.DELIVERED);
        assertThat(fake.uploads()).singleElement().satisfies(u -> assertThat(u.bytes()).isEqualTo(pdf));
        assertThat(h.agent.calls()).as("delivered from the record, not generated again").isEmpty();
    }
}
