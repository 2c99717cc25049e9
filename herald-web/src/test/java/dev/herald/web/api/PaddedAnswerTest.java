package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.turn.TurnOutcome;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A non-streamed stateless answer still waiting at the first keep-alive commits 200 and pads with spaces
 * ({@link PaddedJson}): clients parse the JSON after the spaces (the JDK client with Jackson, the official openai
 * npm client), an error after the commit is the error object under 200, and session requests keep real statuses.
 * The first keep-alive comes after 200 ms here (15 s in production); the turns take over a second.
 */
class PaddedAnswerTest {
    private static final Duration FIRST_KEEP_ALIVE = Duration.ofMillis(200);
    private ApiFixture fx;

    @AfterEach
    void tearDown() {
        if (fx != null) {
            fx.close();
        }
    }

    /** Answers {@code reply} (usage 12 in / 5 out) after {@code ms}. */
    private static ScriptedAgent slow(long ms, String reply) {
        return new ScriptedAgent((request, listener, interrupt) -> {
            Thread.sleep(ms);
            listener.onUsage(12, 5);
            return new TurnOutcome.Final(reply);
        });
    }

    @Test
    void completion_statelessTurnSlowerThanTheFirstKeepAlive_is200WithSpacesThenTheCompletion() throws Exception {
        fx = ApiFixture.start(slow(1_300, "slow but sure"), FIRST_KEEP_ALIVE);

        HttpResponse<String> r = fx.post(body("take a moment", false));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(r.body()).as("keep-alive spaces before the JSON").startsWith(" ");
        assertThat(r.body().strip()).startsWith("{");
        JsonNode c = json(r.body());
        assertThat(c.path("object").asText()).isEqualTo("chat.completion");
        assertThat(c.path("choices").path(0).path("message").path("content").asText()).isEqualTo("slow but sure");
        assertThat(c.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(c.path("usage").path("total_tokens").asLong()).isEqualTo(17);
    }

    @Test
    void responses_statelessTurnSlowerThanTheFirstKeepAlive_is200WithSpacesThenTheResponse() throws Exception {
        fx = ApiFixture.start(slow(1_300, "slow but sure"), FIRST_KEEP_ALIVE);

        HttpResponse<String> r = fx.send(fx.request("/v1/responses")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"model\":\"herald\",\"input\":\"take a moment\"}")).build());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith(" ");
        JsonNode response = json(r.body());
        assertThat(response.path("object").asText()).isEqualTo("response");
        assertThat(response.path("status").asText()).isEqualTo("completed");
        assertThat(response.path("output").path(0).path("content").path(0).path("text").asText()).isEqualTo("slow but sure");
    }

    @Test
    void completion_statelessTurnFailsAfterTheFirstKeepAlive_isTheErrorObjectUnderStatus200() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((request, listener, interrupt) -> {
            Thread.sleep(1_300);
            return new TurnOutcome.Errored("model unreachable");
        }), FIRST_KEEP_ALIVE);

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).as("the status went out with the first space").isEqualTo(200);
        assertThat(r.body()).startsWith(" ");
        JsonNode error = json(r.body()).path("error");
        assertThat(error.path("message").asText()).isEqualTo("model unreachable");
        assertThat(error.path("type").asText()).isEqualTo("server_error");
    }

    @Test
    void completion_statelessTurnFailsBeforeTheFirstKeepAlive_keepsItsRealStatus() throws Exception {
        fx = ApiFixture.start(new ScriptedAgent((request, listener, interrupt) -> new TurnOutcome.Errored("model unreachable")),
                Duration.ofSeconds(5));

        HttpResponse<String> r = fx.post(body("hi", false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).startsWith("{");
    }

    @Test
    void completion_statelessTimeoutAfterTheFirstKeepAlive_isTheTimeoutErrorUnder200AndStopsTheTurn() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withRequestTimeout(Duration.ofMillis(1_300)), ScriptedAgent.silentUntilInterrupted(),
                FIRST_KEEP_ALIVE);

        HttpResponse<String> r = fx.post(body("take your time", false));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r.body()).path("error").path("code").asText()).isEqualTo("timeout");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> fx.agent.lastInterrupt().isRaised());
        assertThat(fx.agent.lastInterrupt().reason()).contains("timed out");
    }

    @Test
    void session_turnSlowerThanTheFirstKeepAlive_isNotPaddedAndKeepsItsRealStatus() throws Exception {
        fx = ApiFixture.start(ScriptedAgent.replying("unused"), FIRST_KEEP_ALIVE);
        fx.gateway.answer((event, gateway) -> {
            Thread.sleep(1_300);
            gateway.send(event, "model unreachable", MessageKind.ERROR, 1, 1);
        });

        HttpResponse<String> r = fx.post(body("hi", false), "X-Herald-Session-Id", "slow-session");

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.body()).startsWith("{");
        assertThat(json(r.body()).path("error").path("message").asText()).isEqualTo("model unreachable");
    }

    @Test
    void openaiNpmClient_paddedCompletionAndResponse_parseAsUsual() throws Exception {
        Path nodeDir = nodeDir();
        fx = ApiFixture.start(slow(1_300, "slow but sure"), FIRST_KEEP_ALIVE);
        String script = """
                import OpenAI from 'openai';
                const client = new OpenAI({ baseURL: process.env.HERALD_BASE_URL, apiKey: process.env.HERALD_API_KEY, maxRetries: 0,
                  timeout: 20000 });
                const c = await client.chat.completions.create({ model: 'herald', messages: [{ role: 'user', content: 'take a moment' }] });
                const r = await client.responses.create({ model: 'herald', input: 'take a moment' });
                console.log(JSON.stringify({ content: c.choices[0].message.content, total: c.usage.total_tokens, text: r.output_text }));
                """;
        ProcessBuilder pb = new ProcessBuilder("node", "--input-type=module", "-e", script).directory(nodeDir.toFile());
        pb.environment().put("HERALD_BASE_URL", fx.baseUrl() + "/v1");
        pb.environment().put("HERALD_API_KEY", ApiFixture.KEY);
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the node openai client did not finish in 60 s");
        }
        String stdout = out.get(5, TimeUnit.SECONDS);
        assertThat(p.exitValue()).as("node exit code; stderr:%n%s", err.get(5, TimeUnit.SECONDS)).isZero();

        JsonNode seen = json(stdout.strip());
        assertThat(seen.path("content").asText()).isEqualTo("slow but sure");
        assertThat(seen.path("total").asLong()).isEqualTo(17);
        assertThat(seen.path("text").asText()).isEqualTo("slow but sure");
    }

    private static Path nodeDir() {
        String basedir = System.getProperty("basedir");
        Path dir = Path.of(basedir != null ? basedir : System.getProperty("user.dir"));
        Path node = (Files.isDirectory(dir.resolve("src/test/node")) ? dir : dir.resolve("herald-web")).resolve("src/test/node");
        if (!Files.isDirectory(node.resolve("node_modules/openai"))) {
            fail("the openai npm client is not installed in %s; run: (cd %s && npm ci)  (bin/test and .ci/run do this)", node, node);
        }
        return node;
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<unreadable: " + e + ">";
        }
    }
}
