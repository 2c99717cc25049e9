package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.api.ApiServerPlatform;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a chat user sees of the model, through the real gateway, the real model client and the API: a
 * failed model call says the model is unavailable without its URL, host or port, and {@code /status}
 * names the model, not where it runs. The operator finds the details on the admin page.
 */
class EndUserTextTest {
    private static final String MODEL = "llama3.1";

    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private GatewayHarness kit;
    private Storage storage;
    private WebServer web;
    private ApiServerPlatform api;
    private Gateway gateway;
    private OpenAiCompatibleClient client;
    private int modelPort;

    @BeforeEach
    void setUp() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            modelPort = s.getLocalPort(); // closed again: nothing listens there, the model is down
        }
        Clock clock = Clock.systemUTC();
        client = new OpenAiCompatibleClient(ModelSettings.of(URI.create("http://127.0.0.1:" + modelPort + "/v1"), MODEL)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5)).withMaxRetries(0));
        HeraldMetrics metrics = new HeraldMetrics();
        MeteredAgent agent = new MeteredAgent(new ModelAgent(client), metrics);
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        storage = kit.storage();
        api = new ApiServerPlatform(ApiServerPlatform.Settings.defaults().withPort(0), agent, web, clock);
        WebUi ui = WebUi.create(web, null, storage, SessionKey.KeyPolicy.defaults(), metrics, clock, false);
        gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false), List.of(api),
                List.of(), GatewaySettings.defaults(), metrics);
        ui.attach(gateway);
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    /** Checks the store invariants (the harness stops the gateway first), then closes the web server, the store and the client. */
    @AfterEach
    void tearDown() {
        try {
            kit.close();
        } finally {
            client.close();
        }
    }

    private HttpResponse<String> say(String text) throws Exception {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":" + json.writeValueAsString(text) + "}]}";
        return http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", "chat-1")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFailedModelCall_tellsTheUserTheModelIsUnavailable_withoutItsUrlHostOrPort_andTheAdminPageHasTheDetails() throws Exception {
        HttpResponse<String> r = say("hello?");

        String text = json.readTree(r.body()).path("error").path("message").asText();
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(text).startsWith("The model is unavailable right now: it could not be reached.");
        assertThat(text).doesNotContain("127.0.0.1").doesNotContain(Integer.toString(modelPort)).doesNotContain("http")
                .doesNotContain("/v1");

        JsonNode status = json.readTree(http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + "/admin/api/status")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertThat(status.path("lastError").path("detail").asText())
                .contains("http://127.0.0.1:" + modelPort + "/v1").contains("unreachable");
        assertThat(status.path("lastError").path("session").asText()).contains("chat-1");
    }

    @Test
    void status_showsTheModelsName_notWhereItRuns_toAChatUser() throws Exception {
        HttpResponse<String> r = say("/status");

        String text = json.readTree(r.body()).path("choices").path(0).path("message").path("content").asText();
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(text).contains("model " + MODEL).doesNotContain("127.0.0.1").doesNotContain(Integer.toString(modelPort))
                .doesNotContain("http");
    }
}
