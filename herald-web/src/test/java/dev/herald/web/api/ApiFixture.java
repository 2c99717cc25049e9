package dev.herald.web.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real web server on a free loopback port with the API adapter on it, a {@link ScriptedAgent} for
 * stateless turns and a {@link ScriptedGateway} as the inbound sink; plus a JDK HTTP client.
 */
final class ApiFixture implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY = "sk-herald-test-secret-4711";

    final WebServer web;
    final ApiServerPlatform api;
    final ScriptedAgent agent;
    final ScriptedGateway gateway = new ScriptedGateway();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String key;

    private ApiFixture(ApiServerPlatform.Settings settings, ScriptedAgent agent, boolean start, Duration heartbeat) throws Exception {
        this.agent = agent;
        this.key = settings.apiKey();
        this.web = new WebServer(WebServer.Settings.ephemeral());
        this.api = new ApiServerPlatform(settings, agent, web, java.time.Clock.systemUTC(), heartbeat);
        gateway.attach(api);
        web.start();
        if (start) {
            api.start(gateway);
        }
    }

    /** Started, with the test key required. */
    static ApiFixture start(ScriptedAgent agent) throws Exception {
        return new ApiFixture(settings(), agent, true, CompletionWriter.HEARTBEAT);
    }

    static ApiFixture start(ApiServerPlatform.Settings settings, ScriptedAgent agent) throws Exception {
        return new ApiFixture(settings, agent, true, CompletionWriter.HEARTBEAT);
    }

    /** Started, with event-stream keep-alives every {@code heartbeat}. */
    static ApiFixture start(ScriptedAgent agent, Duration heartbeat) throws Exception {
        return new ApiFixture(settings(), agent, true, heartbeat);
    }

    /** Started with {@code settings}, the first keep-alive (event streams and padded answers) after {@code heartbeat}. */
    static ApiFixture start(ApiServerPlatform.Settings settings, ScriptedAgent agent, Duration heartbeat) throws Exception {
        return new ApiFixture(settings, agent, true, heartbeat);
    }

    /** The web server runs, but the gateway has not started the adapter yet. */
    static ApiFixture unstarted(ScriptedAgent agent) throws Exception {
        return new ApiFixture(settings(), agent, false, CompletionWriter.HEARTBEAT);
    }

    static ApiServerPlatform.Settings settings() {
        return ApiServerPlatform.Settings.defaults().withPort(0).withApiKey(KEY);
    }

    String baseUrl() {
        return web.baseUrl();
    }

    /** A request builder with the bearer key and JSON content type. */
    HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl() + path)).timeout(Duration.ofSeconds(20));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return b.header("Content-Type", "application/json");
    }

    HttpResponse<String> post(String body, String... headers) {
        HttpRequest.Builder b = request("/v1/chat/completions").POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.build());
    }

    HttpResponse<String> get(String path) {
        return send(request(path).GET().build());
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Posts a streaming request and returns its open line stream. */
    HttpResponse<Stream<String>> postStream(String body, String... headers) throws Exception {
        HttpRequest.Builder b = request("/v1/chat/completions").POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofLines());
    }

    /** The {@code data:} payloads of a whole event stream, {@code [DONE]} included as text. */
    static List<String> events(HttpResponse<Stream<String>> response) {
        List<String> data = new ArrayList<>();
        try (Stream<String> lines = response.body()) {
            lines.filter(l -> l.startsWith("data: ")).forEach(l -> data.add(l.substring(6)));
        }
        return data;
    }

    /** The content deltas of a stream's chunks, in order. */
    static List<String> contents(List<String> events) {
        List<String> out = new ArrayList<>();
        for (String e : events) {
            if (!e.equals("[DONE]")) {
                JsonNode delta = json(e).path("choices").path(0).path("delta").path("content");
                if (delta.isTextual()) {
                    out.add(delta.asText());
                }
            }
        }
        return out;
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text, e);
        }
    }

    /** A minimal body: one user message. */
    static String body(String userText, boolean stream) {
        return "{\"model\":\"herald\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":" + quote(userText) + "}]}";
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        api.close();
        web.close();
    }
}
