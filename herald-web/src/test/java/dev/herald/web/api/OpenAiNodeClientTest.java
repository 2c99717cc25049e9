package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The API server as the official {@code openai} npm client sees it: models, a completion, a stream with
 * usage, a durable session, a wrong key and a bad request, all through {@code src/test/node/client.mjs}.
 * Needs {@code node} and the client installed: {@code (cd herald-web/src/test/node && npm ci)}.
 */
class OpenAiNodeClientTest {
    private static final Path NODE_DIR = moduleDir().resolve("src/test/node");

    @Test
    void openaiNpmClient_modelsCompletionStreamSessionAndErrors_allAsTheClientExpects() throws Exception {
        requireNodeClient();
        try (ApiFixture fx = ApiFixture.start(ScriptedAgent.replying("Hel", "lo"))) {
            Map<String, JsonNode> steps = runClient(fx.baseUrl(), ApiFixture.KEY);

            assertThat(steps.get("models").path("ids").path(0).asText()).isEqualTo("herald");
            JsonNode completion = steps.get("completion");
            assertThat(completion.path("object").asText()).isEqualTo("chat.completion");
            assertThat(completion.path("content").asText()).isEqualTo("Hello");
            assertThat(completion.path("finish").asText()).isEqualTo("stop");
            assertThat(completion.path("totalTokens").asLong()).isEqualTo(17);
            JsonNode stream = steps.get("stream");
            assertThat(stream.path("deltas")).extracting(JsonNode::asText).containsExactly("Hel", "lo");
            assertThat(stream.path("finish").asText()).isEqualTo("stop");
            assertThat(stream.path("totalTokens").asLong()).isEqualTo(17);
            assertThat(steps.get("session").path("content").asText()).isEqualTo("echo: Remember me");
            assertThat(fx.gateway.lastEvent().source().chatId()).isEqualTo("node-session");
            assertThat(steps.get("wrongKey").path("status").asInt()).isEqualTo(401);
            assertThat(steps.get("wrongKey").path("name").asText()).isEqualTo("AuthenticationError");
            assertThat(steps.get("badRequest").path("status").asInt()).isEqualTo(400);
            assertThat(steps.get("badRequest").path("param").asText()).isEqualTo("messages");
            assertThat(fx.agent.requests.getFirst().history()).hasSize(1);
        }
    }

    /** Runs client.mjs against {@code baseUrl} (the server's root) with {@code key}; its steps by name. */
    static Map<String, JsonNode> runClient(String baseUrl, String key) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", "client.mjs").directory(NODE_DIR.toFile());
        pb.environment().put("HERALD_BASE_URL", baseUrl + "/v1");
        pb.environment().put("HERALD_API_KEY", key);
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("node client.mjs did not finish in 90 s; output so far:%n%s", out.getNow(""));
        }
        String stdout = out.get(5, TimeUnit.SECONDS);
        assertThat(p.exitValue()).as("node client.mjs exit code; stderr:%n%s%nstdout:%n%s", err.get(5, TimeUnit.SECONDS), stdout).isZero();
        Map<String, JsonNode> steps = new HashMap<>();
        for (String line : stdout.lines().filter(l -> l.startsWith("{")).toList()) {
            JsonNode step = ApiFixture.json(line);
            steps.put(step.path("step").asText(), step);
        }
        assertThat(steps).as("steps printed by client.mjs:%n%s", stdout)
                .containsKeys(List.of("models", "completion", "stream", "session", "wrongKey", "badRequest").toArray(String[]::new));
        return steps;
    }

    static void requireNodeClient() {
        try {
            Process v = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            if (!v.waitFor(20, TimeUnit.SECONDS) || v.exitValue() != 0) {
                fail("`node --version` failed; install Node.js 20+ to run the openai client test");
            }
        } catch (IOException | InterruptedException e) {
            fail("node is not on PATH (%s); install Node.js 20+ to run the openai client test", e.getMessage());
        }
        if (!Files.isDirectory(NODE_DIR.resolve("node_modules/openai"))) {
            fail("the openai npm client is not installed in %s; run: (cd %s && npm ci)  (.ci/run does this before the tests)",
                    NODE_DIR, NODE_DIR);
        }
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<unreadable: " + e + ">";
        }
    }

    private static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        Path dir = Path.of(basedir != null ? basedir : System.getProperty("user.dir"));
        return Files.isDirectory(dir.resolve("src/test/node")) ? dir : dir.resolve("herald-web");
    }
}
