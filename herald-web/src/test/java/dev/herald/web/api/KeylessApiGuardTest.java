package dev.herald.web.api;

import static dev.herald.web.api.ApiFixture.body;
import static dev.herald.web.api.ApiFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The API without a key answers this machine's programs only: wrong {@code Host}, cross-site browser
 * requests, non-JSON bodies and requests through a proxy are refused before any turn starts.
 */
class KeylessApiGuardTest {
    private ApiFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = ApiFixture.start(ApiFixture.settings().withApiKey(null), ScriptedAgent.replying("answered"));
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private HttpResponse<String> post(String contentType, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/v1/chat/completions")).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body("start a turn", false)));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return fx.send(b.build());
    }

    @Test
    void crossSiteOriginOrFetchSite_is403_andNoTurnStarts() {
        HttpResponse<String> origin = post("application/json", "Origin", "http://evil.example");
        HttpResponse<String> crossSite = post("application/json", "Sec-Fetch-Site", "cross-site");
        HttpResponse<String> sameSite = post("application/json", "Sec-Fetch-Site", "same-site", "Origin", "http://127.0.0.1:1");

        assertThat(origin.statusCode()).isEqualTo(403);
        assertThat(json(origin.body()).path("error").path("message").asText()).contains("cross-site request refused");
        assertThat(json(origin.body()).path("error").path("type").asText()).isEqualTo("permission_error");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(sameSite.statusCode()).as("another port on this machine is another site's page").isEqualTo(403);
        assertThat(fx.agent.requests).isEmpty();
        assertThat(fx.gateway.events).isEmpty();
    }

    @Test
    void nonJsonContentType_is415NamingTheHeader_andNoTurnStarts() {
        HttpResponse<String> textPlain = post("text/plain;charset=UTF-8");
        HttpResponse<String> form = post("application/x-www-form-urlencoded");
        HttpResponse<String> none = post(null);

        for (HttpResponse<String> r : java.util.List.of(textPlain, form, none)) {
            assertThat(r.statusCode()).isEqualTo(415);
            assertThat(json(r.body()).path("error").path("message").asText()).contains("Content-Type: application/json");
            assertThat(json(r.body()).path("error").path("param").asText()).isEqualTo("Content-Type");
        }
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void forwardedRequests_is403SayingAProxyNeedsAKey() {
        HttpResponse<String> xff = post("application/json", "X-Forwarded-For", "203.0.113.9");
        HttpResponse<String> forwarded = post("application/json", "Forwarded", "for=203.0.113.9;proto=https");
        HttpResponse<String> models = fx.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/v1/models"))
                .header("X-Forwarded-For", "203.0.113.9").GET().build());

        assertThat(xff.statusCode()).isEqualTo(403);
        assertThat(json(xff.body()).path("error").path("message").asText()).contains("proxy").contains("platforms.api_server.key");
        assertThat(forwarded.statusCode()).isEqualTo(403);
        assertThat(models.statusCode()).isEqualTo(403);
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void foreignHostHeader_is403AsDnsRebinding() throws IOException {
        String answer = raw("POST /v1/chat/completions HTTP/1.1\r\nHost: rebind.evil.example:8642\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body("x", false).length() + "\r\nConnection: close\r\n\r\n" + body("x", false));

        assertThat(answer).startsWith("HTTP/1.1 403").contains("Host header");
        assertThat(fx.agent.requests).isEmpty();
    }

    @Test
    void aLocalProgram_jsonWithoutOrigin_orTheSameOrigin_isServed() {
        HttpResponse<String> plain = post("application/json; charset=utf-8");
        HttpResponse<String> sameOrigin = post("application/json", "Origin", fx.baseUrl(), "Sec-Fetch-Site", "same-origin");

        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(sameOrigin.statusCode()).isEqualTo(200);
        assertThat(fx.agent.requests).hasSize(2);
    }

    @Test
    void errorsTheServerMakesOnV1_areOpenAiShapedJson() throws IOException {
        HttpResponse<String> notFound = fx.get("/v1/nothing-here");
        HttpResponse<String> wrongMethod = fx.send(fx.request("/v1/chat/completions").GET().build());
        String tooLarge = raw("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(20_000) + "\r\nConnection: close\r\n\r\n");
        HttpResponse<String> oversize = fx.send(fx.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofString(body("z".repeat(1_100_000), false))).build());

        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(json(notFound.body()).path("error").path("code").asText()).isEqualTo("not_found");
        assertThat(json(notFound.body()).path("error").path("message").asText()).contains("/v1/nothing-here");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(json(wrongMethod.body()).path("error").path("code").asText()).isEqualTo("method_not_allowed");
        assertThat(tooLarge).startsWith("HTTP/1.1 431");
        String tooLargeBody = tooLarge.substring(tooLarge.indexOf("\r\n\r\n") + 4);
        assertThat(json(tooLargeBody).path("error").path("code").asText()).isEqualTo("request_headers_too_large");
        assertThat(json(tooLargeBody).path("error").has("param")).isTrue();
        assertThat(oversize.statusCode()).isEqualTo(413);
        assertThat(json(oversize.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
    }

    private String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", fx.web.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
