package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.herald.core.agent.Interrupt;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** http_get against a loopback server: text, limits, schemes. */
class HttpGetToolTest {
    @TempDir
    Path root;

    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/page", exchange -> respond(exchange, "text/html; charset=utf-8",
                "<html><head><style>p{}</style><script>x()</script></head><body><h1>Title</h1><p>Caf&eacute; &amp; more</p></body></html>"));
        server.createContext("/big", exchange -> respond(exchange, "text/plain", "y".repeat(5_000)));
        server.createContext("/slow", exchange -> {
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, "text/plain", "late");
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private static void respond(com.sun.net.httpserver.HttpExchange exchange, String type, String body) throws java.io.IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private ToolResult get(ToolSettings settings, String url) {
        return new HttpGetTool(settings).execute(Args.JSON.createObjectNode().put("url", url),
                new ToolContext("s", "scope", "p", root, new Interrupt()));
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Test
    void get_htmlPage_returnsStatusTypeAndItsText() {
        ToolResult result = get(ToolSettings.defaults(root), url("/page"));

        assertThat(result.text()).startsWith("HTTP 200, text/html; charset=utf-8, ").endsWith("\n\nTitle\nCaf&eacute; & more");
    }

    @Test
    void get_bodyOverTheByteLimit_isCutAtTheLimit() {
        ToolSettings small = new ToolSettings(null, null, root, null, ToolSettings.DEFAULT_RESULT_LIMIT, null, 1_024);

        ToolResult result = get(small, url("/big"));

        assertThat(result.text()).contains("more than 1,024 bytes").contains("download stopped at the 1,024-byte limit");
    }

    @Test
    void get_slowerThanTheTimeLimit_failsWithTheLimit() {
        ToolSettings quick = new ToolSettings(null, null, root, null, ToolSettings.DEFAULT_RESULT_LIMIT, Duration.ofMillis(500), 1_024);

        assertThat(get(quick, url("/slow")).text()).isEqualTo("Error: GET " + url("/slow") + " timed out after 500 ms");
    }

    @Test
    void get_otherSchemes_areRefused() {
        assertThat(get(ToolSettings.defaults(root), "file:///etc/passwd").text())
                .isEqualTo("Error: only http:// and https:// URLs with a host can be fetched (got 'file:///etc/passwd')");
    }
}
