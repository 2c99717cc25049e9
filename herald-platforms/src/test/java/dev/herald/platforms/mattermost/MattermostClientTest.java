package dev.herald.platforms.mattermost;

import static dev.herald.platforms.mattermost.FakeMattermost.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.platforms.GatewayFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fake held to the official client's expectations: {@code @mattermost/client} (Client4 and WebSocketClient, from npm)
 * logs in to {@link FakeMattermost}, opens the WebSocket, writes to Herald in a DM and in a channel thread, and reads the
 * replies back through the same endpoints and events Herald's adapter uses. The client checks the server's seq numbers
 * itself (it closes with 4001 on a skip) and parses only {@code application/json} answers.
 */
class MattermostClientTest {
    static final Path DIR = Path.of("src/test/node");

    final FakeMattermost mm = new FakeMattermost();
    @RegisterExtension
    final GatewayFixture herald = mm.herald(ALICE);

    @Test
    void theOfficialClient_talksToHeraldThroughTheFake_inADmAndInAThread() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/@mattermost/client"))) {
            throw new AssertionError("@mattermost/client is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        Process version = new ProcessBuilder("node", "--experimental-websocket", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 3)")
                .redirectErrorStream(true).start();
        if (!version.waitFor(20, TimeUnit.SECONDS) || version.exitValue() != 0) {
            throw new AssertionError("the official client's WebSocketClient needs Node.js 20.10 or later (a global WebSocket); node says: "
                    + new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        herald.start();

        Process p = new ProcessBuilder("node", "--experimental-websocket", "--no-warnings", "mattermost-client.mjs", mm.url(), "alice",
                FakeMattermost.PASSWORD, "herald", FakeMattermost.TOWN_SQUARE).directory(DIR.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        boolean ended = p.waitFor(60, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ended) {
            p.destroyForcibly();
        }
        assertThat(ended).as("the client script ended; its output:\n" + out).isTrue();
        assertThat(p.exitValue()).as("the client script's exit; its output:\n" + out).isZero();
        List<String> lines = out.lines().filter(l -> l.startsWith("{")).toList();
        JsonNode seen = FakeMattermost.JSON.readTree(lines.getLast());

        assertThat(seen.path("dmReply").path("message").asText()).isEqualTo("echo: hello from the official client");
        assertThat(seen.path("dmReply").path("channel_id").asText()).isEqualTo(seen.path("dm").asText());
        assertThat(seen.path("dmReply").path("root_id").asText()).isEmpty();
        assertThat(seen.path("dmEventChannelType").asText()).isEqualTo("D");
        assertThat(seen.path("again").asText()).as("the client's resend with the same pending_post_id is the same post")
                .isEqualTo(seen.path("asked").asText());
        assertThat(seen.path("threadReply").path("root_id").asText()).isEqualTo(seen.path("root").asText());
        assertThat(seen.path("threadReply").path("message").asText()).isEqualTo("echo: what is step one?");
        assertThat(seen.path("replies")).extracting(JsonNode::asText).containsExactly("OK", "OK");
        assertThat(seen.path("clientCloses")).as("the client never saw its seq numbers skip").isEmpty();
        List<Long> seqs = FakeMattermost.JSON.convertValue(seen.path("seqs"), FakeMattermost.JSON.getTypeFactory()
                .constructCollectionType(List.class, Long.class));
        assertThat(seqs).isEqualTo(LongStream.range(0, seqs.size()).boxed().toList());
        assertThat(herald.agent.messages()).containsExactly("hello from the official client", "what is step one?");
    }
}
