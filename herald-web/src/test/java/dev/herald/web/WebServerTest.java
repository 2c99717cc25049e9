package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class WebServerTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(WebServer web, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void health_answersOkOnTheBoundPort() throws Exception {
        try (WebServer web = new WebServer(WebServer.Settings.ephemeral())) {
            web.start();

            HttpResponse<String> r = get(web, "/health");

            assertThat(web.port()).isPositive();
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("{\"status\":\"ok\"}");
            assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        }
    }

    @Test
    void routes_eachFeatureRegistersItsOwn_andHandlersRunOnVirtualThreads() throws Exception {
        try (WebServer web = new WebServer(WebServer.Settings.ephemeral())) {
            web.add(Routes.of("one", r -> r.get("/one", ctx -> ctx.result("one " + Thread.currentThread().isVirtual()))));
            web.add(Routes.of("two", r -> r.get("/two", ctx -> ctx.result("two"))));
            web.start();

            assertThat(get(web, "/one").body()).isEqualTo("one true");
            assertThat(get(web, "/two").body()).isEqualTo("two");
        }
    }

    @Test
    void add_afterStart_failsNamingTheFeature() {
        try (WebServer web = new WebServer(WebServer.Settings.ephemeral())) {
            web.start();

            assertThatThrownBy(() -> web.add(Routes.of("late", r -> { })))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("late").hasMessageContaining("before start()");
        }
    }

    @Test
    void start_onATakenPort_failsNamingIt() {
        try (WebServer first = new WebServer(WebServer.Settings.ephemeral())) {
            first.start();
            WebServer second = new WebServer(new WebServer.Settings("127.0.0.1", first.port()));

            assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:" + first.port());
            second.close();
        }
    }

    @Test
    void close_releasesThePortAndIsIdempotent() throws Exception {
        WebServer web = new WebServer(WebServer.Settings.ephemeral());
        web.start();
        int port = web.port();

        web.close();
        web.close();

        assertThat(web.running()).isFalse();
        try (WebServer again = new WebServer(new WebServer.Settings("127.0.0.1", port))) {
            again.start();
            assertThat(again.port()).isEqualTo(port);
        }
    }
}
