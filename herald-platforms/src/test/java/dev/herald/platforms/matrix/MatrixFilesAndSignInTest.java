package dev.herald.platforms.matrix;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.matrix.FakeMatrix.ALICE;
import static dev.herald.platforms.matrix.FakeMatrix.BOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.RecordingSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files both ways through the content repository, and signing in: a password login once (its token kept in the store,
 * reused after a restart), a rejected token failing start with the key named and the token never shown.
 */
class MatrixFilesAndSignInTest {
    @TempDir
    Path workspace;

    final FakeMatrix matrix = new FakeMatrix();
    @RegisterExtension
    final GatewayFixture herald = MatrixFixtures.herald(matrix);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void anImageSent_isAnAttachmentOfTheTurn_fetchedWithTheToken() throws Exception {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};
        String mxc = matrix.upload(png, "image/png");
        ObjectNode image = FakeMatrix.content("cat.png");
        image.put("msgtype", "m.image").put("url", mxc).putObject("info").put("mimetype", "image/png").put("size", png.length);

        matrix.say(dm, ALICE, image);

        await().atMost(WAIT).until(() -> matrix.botEvents(dm).size() == 1);
        MessageEvent.MediaRef ref = herald.storage.turns().inState(TurnState.DELIVERED, 10).getFirst().attachments().getFirst();
        assertThat(ref).extracting(MessageEvent.MediaRef::kind, MessageEvent.MediaRef::ref, MessageEvent.MediaRef::mimeType,
                MessageEvent.MediaRef::name).containsExactly("image", mxc, "image/png", "cat.png");
        var fetched = ((MatrixAdapter) herald.current).fetch(ref, 1024);
        assertThat(fetched.bytes()).isEqualTo(png);
        assertThat(matrix.requests("GET", "/_matrix/client/v1/media/download/")).singleElement()
                .satisfies(r -> assertThat(r.user()).as("fetched with the bot's token").isEqualTo(BOT));
        assertThatThrownBy(() -> ((MatrixAdapter) herald.current).fetch(ref, 3)).isInstanceOf(IOException.class).hasMessageContaining("limit");
    }

    @Test
    void sendFile_isUploaded_thenAnEventWithTheMxcUrl_afterTheText() throws Exception {
        String dm = matrix.createRoom(ALICE, false, BOT);
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        Path p = workspace.resolve("summary.pdf");
        Files.write(p, pdf);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", new OutboundFile(p.toRealPath().toString(), "summary.pdf", "application/pdf",
                pdf.length, "Q3 summary"));

        matrix.text(dm, ALICE, "summarize it");
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var events = matrix.botEvents(dm);
        assertThat(events).hasSize(2);
        assertThat(events.get(0).body()).isEqualTo("Here is the summary.");
        var file = events.get(1).content();
        assertThat(file.path("msgtype").asText()).isEqualTo("m.file");
        assertThat(file.path("filename").asText()).isEqualTo("summary.pdf");
        assertThat(file.path("body").asText()).isEqualTo("Q3 summary");
        assertThat(file.path("info").path("mimetype").asText()).isEqualTo("application/pdf");
        assertThat(matrix.media(file.path("url").asText())).isEqualTo(pdf);
    }

    @Test
    void aPasswordLogin_happensOnce_andItsTokenIsKeptInTheStoreForTheNextStart() throws Exception {
        GatewayFixture[] self = {herald};
        MatrixSettings withPassword = MatrixFixtures.settings(matrix).withPassword(FakeMatrix.BOT_PASSWORD, "HERALDBOX");
        String dm = matrix.createRoom(ALICE, false, BOT);
        MatrixAdapter first = new MatrixAdapter(withPassword, MatrixFixtures.timing(), Clock.systemUTC(), self[0].storage.platformState());
        try {
            first.start(new RecordingSink());
            await().atMost(WAIT).until(() -> MatrixFixtures.botSyncing(matrix));
        } finally {
            first.close();
        }
        String token = herald.storage.platformState().get(MatrixAdapter.PLATFORM, MatrixSync.TOKEN).orElseThrow();
        assertThat(matrix.requests("POST", "/login")).singleElement().satisfies(r -> {
            assertThat(r.body().path("device_id").asText()).isEqualTo("HERALDBOX");
            assertThat(r.body().path("identifier").path("user").asText()).isEqualTo(BOT);
        });

        MatrixAdapter second = new MatrixAdapter(withPassword, MatrixFixtures.timing(), Clock.systemUTC(), herald.storage.platformState());
        try {
            second.start(new RecordingSink());
            await().atMost(WAIT).until(() -> matrix.requests("GET", "/account/whoami").size() == 2);
        } finally {
            second.close();
        }
        assertThat(matrix.requests("POST", "/login")).as("the stored token was used").hasSize(1);
        assertThat(matrix.requests("GET", "/account/whoami")).allSatisfy(r -> assertThat(r.user()).isEqualTo(BOT));
        assertThat(token).startsWith("syt_herald_");
        assertThat(dm).isNotBlank();
    }

    @Test
    void aRejectedToken_failsStartNamingTheKey_andNeverShowsTheToken() {
        MatrixSettings wrong = MatrixSettings.of(matrix.baseUrl(), BOT, "syt_wrong_secret_value");
        MatrixAdapter adapter = new MatrixAdapter(wrong, MatrixFixtures.timing(), Clock.systemUTC(), herald.storage.platformState());

        assertThatThrownBy(() -> adapter.start(new RecordingSink())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("M_UNKNOWN_TOKEN").hasMessageContaining("platforms.matrix.access_token")
                .hasMessageNotContaining("syt_wrong_secret_value");
        adapter.close();
    }

    @Test
    void aTokenRevokedWhileRunning_reportsBackingOff_andSendsFailNamingTheKey() {
        String dm = matrix.createRoom(ALICE, false, BOT);
        herald.start();
        matrix.revokeTokens(BOT);

        matrix.text(dm, ALICE, "hello?");

        var r = herald.current.send(new dev.herald.core.platform.OutboundMessage(dev.herald.core.platform.ChatTarget.of(dm), "hi",
                dev.herald.core.platform.MessageKind.NOTICE, null, null, 1, 1));
        assertThat(r.success()).isFalse();
        assertThat(r.error()).contains("M_UNKNOWN_TOKEN", "platforms.matrix.access_token").doesNotContain(FakeMatrix.BOT_TOKEN);
        herald.stop(StopKind.SHUTDOWN);
    }
}
