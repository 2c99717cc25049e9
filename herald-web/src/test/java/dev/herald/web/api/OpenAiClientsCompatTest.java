package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Herald's API as two independent clients see it: the official {@code openai} npm package (model selection,
 * refusals, response_format, a tool round trip streamed and not, {@code /v1/responses} plain and streamed) and the
 * Vercel AI SDK ({@code ai} + {@code @ai-sdk/openai-compatible}: {@code generateText} running its own tool), through
 * {@code src/test/node/compat.mjs}. Behind the API: the real profile agent on a scripted model server.
 */
class OpenAiClientsCompatTest {
    private static final Path NODE_DIR = moduleDir().resolve("src/test/node");

    /** Calls the client's weather tool when offered and not yet answered; JSON when asked; else names the model. */
    static Reply script(RecordedRequest r) {
        RecordedRequest.Message last = r.messages().getLast();
        if (last.role().equals("tool")) {
            return Reply.text("It is " + last.content() + " in Oslo.").withUsage(20, 6);
        }
        if (r.toolNames().contains("get_weather")) {
            return Reply.toolCalls(new Reply.ToolCall("call_w1", "get_weather", "{\"city\":\"Oslo\"}")).withUsage(15, 3);
        }
        if (r.json().path("response_format").path("type").asText().equals("json_object")) {
            return Reply.text("{\"ok\":true}").withUsage(9, 3);
        }
        return Reply.text("answer from " + r.model()).withUsage(11, 4);
    }

    @Test
    void openaiPackageAndAiSdk_selectModels_getRefusals_runClientTools_andStreamResponses() throws Exception {
        requireNodePackages();
        try (FakeModelServer model = FakeModelServer.start();
                OpenAiCompatibleClient small = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "small-model").withMaxRetries(0));
                OpenAiCompatibleClient eye = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "eye-model").withMaxRetries(0))) {
            model.defaultReply(OpenAiClientsCompatTest::script);
            ProfileAgent agent = new ProfileAgent(List.of(new ProfileAgent.Profile(ProfileAgent.DEFAULT, small, AgentSettings.DEFAULT),
                    new ProfileAgent.Profile("eye", eye, AgentSettings.DEFAULT.withVision(true, 1 << 20))), ToolRegistry.none(),
                    p -> Optional.empty(), ModelChoiceStore.inMemory());
            WebServer web = new WebServer(WebServer.Settings.ephemeral());
            ApiServerPlatform api = new ApiServerPlatform(ApiFixture.settings(), agent, web, Clock.systemUTC());
            ScriptedGateway gateway = new ScriptedGateway();
            gateway.attach(api);
            web.start();
            api.start(gateway);
            try {
                Map<String, JsonNode> steps = runClient(web.baseUrl());

                assertThat(steps.get("models").path("ids")).extracting(JsonNode::asText).containsExactly("herald", "default", "eye");
                assertThat(steps.get("select").path("content").asText()).isEqualTo("answer from eye-model");
                assertThat(steps.get("select").path("model").asText()).isEqualTo("eye");
                assertRefused(steps.get("unknownModel"), "model", "herald, default, eye");
                assertRefused(steps.get("nTwo"), "n", "'n' must be 1");
                assertRefused(steps.get("unknownField"), "prediction", "not supported");
                assertThat(steps.get("json").path("content").asText()).isEqualTo("{\"ok\":true}");
                JsonNode tools = steps.get("tools");
                assertThat(tools.path("finish").asText()).isEqualTo("tool_calls");
                assertThat(tools.path("name").asText()).isEqualTo("get_weather");
                assertThat(tools.path("args").path("city").asText()).isEqualTo("Oslo");
                assertThat(tools.path("answer").asText()).isEqualTo("It is sunny in Oslo.");
                assertThat(tools.path("finish2").asText()).isEqualTo("stop");
                JsonNode toolsStream = steps.get("toolsStream");
                assertThat(toolsStream.path("finish").asText()).isEqualTo("tool_calls");
                assertThat(toolsStream.path("calls").path(0).path("name").asText()).isEqualTo("get_weather");
                assertThat(toolsStream.path("calls").path(0).path("arguments").asText()).isEqualTo("{\"city\":\"Oslo\"}");
                JsonNode responses = steps.get("responses");
                assertThat(responses.path("text").asText()).isEqualTo("answer from small-model");
                assertThat(responses.path("status").asText()).isEqualTo("completed");
                assertThat(responses.path("total").asLong()).isEqualTo(15);
                JsonNode stream = steps.get("responsesStream");
                assertThat(stream.path("types")).extracting(JsonNode::asText).startsWith("response.created", "response.in_progress",
                        "response.output_item.added", "response.content_part.added", "response.output_text.delta")
                        .endsWith("response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed");
                assertThat(stream.path("deltas")).extracting(JsonNode::asText).containsExactly("answer ", "from ", "small-model");
                assertThat(stream.path("text").asText()).isEqualTo("answer from small-model");
                assertRefused(steps.get("responsesRefusal"), "previous_response_id", "X-Herald-Session-Id");
                JsonNode aiSdk = steps.get("aiSdk");
                assertThat(aiSdk.path("toolCalls").path(0).path("name").asText()).isEqualTo("get_weather");
                assertThat(aiSdk.path("toolCalls").path(0).path("input").path("city").asText()).isEqualTo("Oslo");
                assertThat(aiSdk.path("toolResults").path(0).asText()).isEqualTo("sunny");
                assertThat(aiSdk.path("text").asText()).isEqualTo("It is sunny in Oslo.");
                assertThat(aiSdk.path("steps").asInt()).isEqualTo(2);
                JsonNode responsesTools = steps.get("aiSdkResponsesTools");
                assertThat(responsesTools.path("status").asInt()).as("the AI SDK's default provider with tools").isEqualTo(400);
                assertThat(responsesTools.path("body").asText()).contains("/v1/chat/completions", ".chat('herald')",
                        "@ai-sdk/openai-compatible");
                assertThat(steps.get("aiSdkChat").path("text").asText()).as("what the refusal names works")
                        .isEqualTo("It is sunny in Oslo.");
                RecordedRequest firstToolRequest = model.requests().stream().filter(r -> r.toolNames().contains("get_weather")).findFirst()
                        .orElseThrow();
                assertThat(firstToolRequest.tools().path(0).path("function").path("parameters").path("required").path(0).asText())
                        .isEqualTo("city");
            } finally {
                api.close();
                web.close();
            }
        }
    }

    private static void assertRefused(JsonNode step, String param, String message) {
        assertThat(step.path("status").asInt()).as(step.toString()).isEqualTo(400);
        assertThat(step.path("param").asText()).as(step.toString()).isEqualTo(param);
        assertThat(step.path("message").asText()).as(step.toString()).contains(message);
        assertThat(step.path("name").asText()).isEqualTo("BadRequestError");
    }

    private static Map<String, JsonNode> runClient(String baseUrl) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", "compat.mjs").directory(NODE_DIR.toFile());
        pb.environment().put("HERALD_BASE_URL", baseUrl + "/v1");
        pb.environment().put("HERALD_API_KEY", ApiFixture.KEY);
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("node compat.mjs did not finish in 120 s; output so far:%n%s", out.getNow(""));
        }
        String stdout = out.get(5, TimeUnit.SECONDS);
        assertThat(p.exitValue()).as("node compat.mjs exit code; stderr:%n%s%nstdout:%n%s", err.get(5, TimeUnit.SECONDS), stdout).isZero();
        Map<String, JsonNode> steps = new HashMap<>();
        for (String line : stdout.lines().filter(l -> l.startsWith("{")).toList()) {
            JsonNode step = ApiFixture.json(line);
            steps.put(step.path("step").asText(), step);
        }
        assertThat(steps).as("steps printed by compat.mjs:%n%s", stdout).containsKeys("models", "select", "unknownModel", "nTwo",
                "unknownField", "json", "tools", "toolsStream", "responses", "responsesStream", "responsesRefusal", "aiSdk",
                "aiSdkResponsesTools", "aiSdkChat");
        return steps;
    }

    private static void requireNodePackages() {
        for (String pkg : List.of("openai", "ai", "@ai-sdk/openai-compatible", "@ai-sdk/openai", "zod")) {
            if (!Files.isDirectory(NODE_DIR.resolve("node_modules").resolve(pkg))) {
                fail("the npm package %s is not installed in %s; run: (cd %s && npm ci)  (bin/test does this before the tests)", pkg,
                        NODE_DIR, NODE_DIR);
            }
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
