package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.Platform;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A platform plug-in serves its service's calls (webhooks) under /platforms/<type>/ on the API server's listener: the
 * handler sees the raw body, headers, query and URL; a body over the cap is 413 before the handler runs; a handler that
 * throws is 500 without its words; paths are only the plug-in's own.
 */
class PlatformRoutesTest {
    private final WebServer web = new WebServer(WebServer.Settings.ephemeral());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<InboundHttp.Request> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        web.close();
        http.close();
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return http.send(b.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void routes_seeTheRawBodyHeadersQueryAndUrl_andAnswerWhatTheHandlerSays() throws Exception {
        PlatformRoutes routes = new PlatformRoutes(Platform.of("line"), web);
        routes.route("POST", "events", r -> {
            seen.add(r);
            return r.header("X-Line-Signature").orElse("").equals("good") ? InboundHttp.Response.ok() : InboundHttp.Response.text(401, "bad signature");
        });
        routes.route("GET", "verify", r -> InboundHttp.Response.text(200, r.query().getOrDefault("hub.challenge", "")));
        web.start();
        String base = web.baseUrl() + "/platforms/line/";

        HttpResponse<String> good = send(HttpRequest.newBuilder(URI.create(base + "events?x=1")).header("X-Line-Signature", "good")
                .POST(HttpRequest.BodyPublishers.ofString("{\"events\":[]}")));
        HttpResponse<String> bad = send(HttpRequest.newBuilder(URI.create(base + "events")).header("X-Line-Signature", "forged")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
        HttpResponse<String> challenge = send(HttpRequest.newBuilder(URI.create(base + "verify?hub.mode=subscribe&hub.challenge=1158201444")).GET());

        assertThat(good.statusCode()).isEqualTo(200);
        assertThat(bad.statusCode()).isEqualTo(401);
        assertThat(bad.body()).isEqualTo("bad signature");
        assertThat(challenge.body()).isEqualTo("1158201444");
        InboundHttp.Request first = seen.getFirst();
        assertThat(first.bodyText()).isEqualTo("{\"events\":[]}");
        assertThat(first.header("x-line-signature")).contains("good");
        assertThat(first.query()).containsEntry("x", "1");
        assertThat(first.url()).isEqualTo(base + "events?x=1");
        assertThat(first.path()).isEqualTo("/platforms/line/events");
    }

    @Test
    void aBodyOverTheCap_is413BeforeTheHandler_andAHandlerThatThrows_is500WithoutItsWords() throws Exception {
        PlatformRoutes routes = new PlatformRoutes(Platform.of("line"), web);
        routes.route("POST", "events", r -> {
            seen.add(r);
            throw new IllegalStateException("secret internals sk-123");
        });
        web.start();
        String url = web.baseUrl() + "/platforms/line/events";

        HttpResponse<String> big = send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofByteArray(new byte[InboundHttp.MAX_BODY_BYTES + 1])));
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(seen).isEmpty();

        HttpResponse<String> failing = send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(failing.statusCode()).isEqualTo(500);
        assertThat(failing.body()).doesNotContain("secret").doesNotContain("IllegalState");
        HttpResponse<String> other = send(HttpRequest.newBuilder(URI.create(web.baseUrl() + "/platforms/other/events")).POST(HttpRequest.BodyPublishers.ofString("{}")));
        assertThat(other.statusCode()).isEqualTo(404);
    }

    @Test
    void everyAnswer_isCountedByPlatformAndStatus_soRefusedCallsShowInMetrics() throws Exception {
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        PlatformRoutes routes = new PlatformRoutes(Platform.of("line"), web, registry);
        routes.route("POST", "events", r -> r.header("X-Line-Signature").orElse("").equals("good") ? InboundHttp.Response.ok()
                : InboundHttp.Response.text(401, "bad signature"));
        web.start();
        String url = web.baseUrl() + "/platforms/line/events";

        send(HttpRequest.newBuilder(URI.create(url)).header("X-Line-Signature", "good").POST(HttpRequest.BodyPublishers.ofString("{}")));
        send(HttpRequest.newBuilder(URI.create(url)).header("X-Line-Signature", "forged").POST(HttpRequest.BodyPublishers.ofString("{}")));
        send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString("{}")));
        send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofByteArray(new byte[InboundHttp.MAX_BODY_BYTES + 1])));

        assertThat(registry.scrape())
                .contains("herald_platform_webhooks_total{platform=\"line\",status=\"200\"} 1.0")
                .contains("herald_platform_webhooks_total{platform=\"line\",status=\"401\"} 2.0")
                .contains("herald_platform_webhooks_total{platform=\"line\",status=\"413\"} 1.0");
    }

    @Test
    void aPathOutsideThePlatformsFolder_orAnOddMethod_isRefusedWhenTheRouteIsAsked() {
        PlatformRoutes routes = new PlatformRoutes(Platform.of("line"), web);
        assertThatThrownBy(() -> routes.route("POST", "../admin", r -> null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> routes.route("TRACE", "events", r -> null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboundHttp.none(Platform.of("line")).route("POST", "events", r -> null))
                .hasMessageContaining("platforms.api_server.enabled: true").hasMessageContaining("/platforms/line/events");
    }
}
