package dev.herald.platforms.matrix;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fake homeserver held to the official client: npm {@code matrix-js-sdk} (run by {@code matrix-client.mjs}) logs in
 * as Alice, syncs, makes a direct room inviting the bot, and writes; Herald, on the same fake, joins on the invite and
 * answers; the script reads the reply through its own sync. Both clients then saw the same wire format.
 */
class MatrixJsSdkTest {
    static final Path DIR = Path.of("src/test/node");

    final FakeMatrix matrix = new FakeMatrix();
    @RegisterExtension
    final GatewayFixture herald = MatrixFixtures.herald(matrix);

    @Test
    void theOfficialClient_talksToHeraldThroughTheFake_andReadsItsFormattedReply() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/matrix-js-sdk"))) {
            throw new AssertionError("matrix-js-sdk is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        herald.start();
        herald.agent.reply("Hello **Alice**, nice to meet you.");

        Process p = new ProcessBuilder("node", "matrix-client.mjs", matrix.baseUrl(), "alice", "alice-password", FakeMatrix.BOT,
                "hello from the js-sdk").directory(DIR.toFile()).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        String out = read(p.getInputStream());
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        assertThat(p.exitValue()).as("matrix-client.mjs: %s", err.get(5, TimeUnit.SECONDS)).isZero();

        String line = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst()
                .orElseThrow(() -> new AssertionError("matrix-client.mjs printed no result: " + out));
        JsonNode result = LocalJsonServer.JSON.readTree(line.substring("RESULT ".length()));
        assertThat(result.path("reply").path("body").asText()).isEqualTo("Hello **Alice**, nice to meet you.");
        assertThat(result.path("reply").path("format").asText()).isEqualTo("org.matrix.custom.html");
        assertThat(result.path("reply").path("formatted_body").asText()).isEqualTo("Hello <strong>Alice</strong>, nice to meet you.");
        assertThat(result.path("reply").path("in_reply_to").asText()).isEqualTo(result.path("sent").asText());
        String room = result.path("room").asText();
        assertThat(matrix.membership(room, FakeMatrix.BOT)).as("Herald joined on the direct invite").isEqualTo("join");
        assertThat(herald.agent.messages()).containsExactly("hello from the js-sdk");
        await().atMost(WAIT).until(() -> herald.turns().size() == 1);
        assertThat(herald.turns().getFirst().sessionKey().value()).isEqualTo("agent:main:matrix:dm:" + room);
        List<FakeMatrix.Request> clientSends = matrix.requests("PUT", "/send/m.room.message/").stream()
                .filter(r -> FakeMatrix.ALICE.equals(r.user())).toList();
        assertThat(matrix.unrecognized).as("every call the official client made is one the fake serves").isEmpty();
        assertThat(clientSends).as("the js-sdk sent with a transaction id").hasSize(1);
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
