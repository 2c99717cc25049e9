package dev.herald.platforms.homeassistant;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.PlatformToolSource;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.platform.PlatformTools;
import dev.herald.platforms.RecordingSink;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.web.WebServer;
import dev.herald.web.api.ApiServerPlatform;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Ask the house": Home Assistant's conversation agent (an OpenAI-compatible one such as Extended OpenAI Conversation,
 * its functions cleared) sends the recognised sentence to Herald's API server as a stateless chat completion with
 * Herald's key; the agent acts through {@code ha_call_service}. Nobody can approve in a voice pipeline, so a call in an
 * allowed domain runs and one outside it is denied without reaching Home Assistant.
 */
class HomeAssistantAssistTest {
    static final String KEY = "herald-api-key-for-the-house";
    static final FakeHomeAssistant HA = new FakeHomeAssistant();

    @TempDir
    Path dir;
    final FakeModelServer model = FakeModelServer.start();
    final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "house-model").withMaxRetries(0));
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    GatewayHarness kit;
    WebServer web;
    HomeAssistantAdapter adapter;

    @AfterAll
    static void stopFake() {
        HA.close();
    }

    @BeforeEach
    void start() throws Exception {
        PlatformTools tools = new PlatformTools();
        adapter = HomeAssistantPlugin.create(HomeAssistantSettings.of(HA.url(), FakeHomeAssistant.TOKEN), HomeAssistantHarness.timing(),
                HomeAssistantHarness.context(tools));
        adapter.start(new RecordingSink());
        ToolSettings settings = ToolSettings.defaults(dir.resolve("workspaces")).withTools(List.of("mcp"));
        Clock clock = Clock.systemUTC();
        HeraldMetrics metrics = new HeraldMetrics();
        MeteredAgent agent = new MeteredAgent(new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(settings, BuiltinTools.all(settings),
                List.of(new PlatformToolSource(tools)))), metrics);
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        ApiServerPlatform api = new ApiServerPlatform(ApiServerPlatform.Settings.defaults().withPort(0).withApiKey(KEY), agent, web, clock);
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false),
                List.of(api), List.of(), GatewaySettings.defaults(), metrics);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void stop() {
        try {
            kit.close();
        } finally {
            adapter.close();
            client.close();
            model.close();
        }
    }

    /** The request an OpenAI-compatible conversation agent makes for one sentence: the system prompt, the sentence, its sampling. */
    private JsonNode ask(String sentence) throws Exception {
        ObjectNode body = FakeHomeAssistant.JSON.createObjectNode().put("model", "herald").put("max_tokens", 150).put("top_p", 1)
                .put("temperature", 0.5).put("user", "01JEXAMPLECONVERSATIONID");
        body.putArray("messages").add(FakeHomeAssistant.JSON.createObjectNode().put("role", "system")
                        .put("content", "I want you to act as smart home manager of Home Assistant. Answer in plain sentences."))
                .add(FakeHomeAssistant.JSON.createObjectNode().put("role", "user").put("content", sentence));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return FakeHomeAssistant.JSON.readTree(response.body());
    }

    @Test
    void aSentenceAboutALight_turnsItOn_andTheAnswerComesBack() throws Exception {
        int n = HA.calls.size();
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_1", "ha_call_service",
                "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.porch\"]}")), Reply.text("The porch light is on."));

        JsonNode answer = ask("turn on the porch light");

        assertThat(answer.path("choices").path(0).path("message").path("content").asText()).isEqualTo("The porch light is on.");
        assertThat(HA.calls.subList(n, HA.calls.size())).extracting(c -> c.domain() + "." + c.service()).containsExactly("light.turn_on");
        assertThat(model.lastRequest().messages().getLast().content()).isEqualTo("Done: light.turn_on on light.porch.");
    }

    @Test
    void unlockingByVoice_isDenied_andNothingReachesHomeAssistant() throws Exception {
        int n = HA.calls.size();
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("call_1", "ha_call_service",
                "{\"domain\":\"lock\",\"service\":\"unlock\",\"entity\":[\"lock.front_door\"]}")), Reply.text("I may not unlock the door."));

        JsonNode answer = ask("unlock the front door");

        assertThat(answer.path("choices").path(0).path("message").path("content").asText()).isEqualTo("I may not unlock the door.");
        assertThat(model.lastRequest().messages().getLast().content()).startsWith("Denied");
        assertThat(HA.calls.subList(n, HA.calls.size())).isEmpty();
        assertThat(HA.stateOf("lock.front_door")).isEqualTo("locked");
    }
}
