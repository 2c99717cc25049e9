package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.web.Routes;
import dev.herald.web.WebServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Browsers' cross-site request forgery against the keyless API, in headless Chromium: a page served by
 * another origin on this machine ({@code http://localhost:<other port>}) sends every kind of request a
 * browser sends without asking (no-cors fetches with text/plain and untyped bodies, a text/plain form), and
 * one that needs a CORS preflight. The API is on {@code 127.0.0.1}, as by default, without a key.
 */
class KeylessApiBrowserTest {
    private static final Path NODE_DIR = moduleDir().resolve("src/test/node");

    @Test
    void aPageOnAnotherOrigin_cannotMakeTheBrowserStartATurn() throws Exception {
        ScriptedAgent agent = ScriptedAgent.replying("should never be asked");
        try (ApiFixture fx = ApiFixture.start(ApiFixture.settings().withApiKey(null), agent);
                WebServer evil = new WebServer(WebServer.Settings.ephemeral())) {
            evil.add(Routes.of("evil", r -> r.get("/evil.html", ctx -> ctx.html("<!doctype html><title>evil</title><body></body>"))));
            evil.start();
            String evilUrl = "http://localhost:" + evil.port();
            try (BrowserScript page = BrowserScript.start(NODE_DIR, "browser/csrf.mjs",
                    Map.of("HERALD_URL", fx.baseUrl(), "HERALD_EVIL_URL", evilUrl))) {
                JsonNode attempted = page.awaitStep("attempted", Duration.ofSeconds(60));
                page.awaitDone(Duration.ofSeconds(30));
                assertThat(attempted.path("results").path("no-cors text/plain").asText()).as("the browser did send it").isEqualTo("sent");
            }
            Thread.sleep(300); // a request the browser sent last is handled by now

            assertThat(agent.requests).as("turns started by the other site's page").isEmpty();
            assertThat(fx.gateway.events).isEmpty();
        }
    }

    private static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        Path d = Path.of(basedir != null ? basedir : System.getProperty("user.dir"));
        return Files.isDirectory(d.resolve("src/test/node")) ? d : d.resolve("herald-web");
    }
}
