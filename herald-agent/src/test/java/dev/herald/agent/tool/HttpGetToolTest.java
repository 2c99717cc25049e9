package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolOrigin;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * http_get against loopback lab servers: the egress guard (loopback refused unless allow-listed, every redirect hop
 * checked), the marker header and no credentials, text, limits, and stopping. Two servers: one on 127.0.0.1 (the
 * "refused" target, like Herald's own port) and one on 127.0.0.5, which tests allow-list as {@code 127.0.0.5/32}.
 */
class HttpGetToolTest {
    private static final String LAB = "127.0.0.5";

    @TempDir
    Path root;

    private HttpServer local;
    private HttpServer lab;
    private final List<Headers> localRequests = new CopyOnWriteArrayList<>();
    private final List<Headers> labRequests = new CopyOnWriteArrayList<>();
    private final CountDownLatch slowArrived = new CountDownLatch(1);
    private final List<HttpGetTool> tools = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        local = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        local.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        local.createContext("/", exchange -> {
            localRequests.add(new Headers(exchange.getRequestHeaders()));
            respond(exchange, 200, "text/plain", "secret transcript");
        });
        local.start();
        lab = HttpServer.create(new InetSocketAddress(InetAddress.getByName(LAB), 0), 0);
        lab.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        lab.createContext("/", exchange -> {
            labRequests.add(new Headers(exchange.getRequestHeaders()));
            exchange.getResponseHeaders().add("Set-Cookie", "session=lab-cookie; Path=/");
            respond(exchange, 200, "text/plain", "lab page");
        });
        lab.createContext("/page", exchange -> respond(exchange, 200, "text/html; charset=utf-8",
                "<html><head><style>p{}</style><script>x()</script></head><body><h1>Title</h1><p>Caf&eacute; &amp; more</p></body></html>"));
        lab.createContext("/big", exchange -> respond(exchange, 200, "text/plain", "y".repeat(5_000)));
        lab.createContext("/angles", exchange -> respond(exchange, 200, "text/html", "<".repeat(200_000)));
        lab.createContext("/to-local", exchange -> redirect(exchange, "http://127.0.0.1:" + local.getAddress().getPort() + "/admin/api/status"));
        lab.createContext("/to-page", exchange -> redirect(exchange, "/page"));
        lab.createContext("/loop", exchange -> redirect(exchange, "/loop"));
        lab.createContext("/slow", exchange -> {
            slowArrived.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, 200, "text/plain", "late");
        });
        lab.start();
    }

    @AfterEach
    void stop() {
        tools.forEach(HttpGetTool::close);
        local.stop(0);
        lab.stop(0);
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static void redirect(HttpExchange exchange, String location) throws IOException {
        exchange.getResponseHeaders().set("Location", location);
        exchange.getResponseHeaders().set("Connection", "close");
        respond(exchange, 302, "text/plain", "moved");
    }

    private ToolSettings allowingLab() {
        return ToolSettings.defaults(root).withHttpAllow(List.of(LAB + "/32"));
    }

    private ToolResult get(ToolSettings settings, String url) {
        return get(settings, url, new Interrupt());
    }

    private ToolResult get(ToolSettings settings, String url, Interrupt interrupt) {
        HttpGetTool tool = new HttpGetTool(settings);
        tools.add(tool);
        return tool.execute(Args.JSON.createObjectNode().put("url", url), new ToolContext("s", "scope", "p", root, interrupt));
    }

    private String labUrl(String path) {
        return "http://" + LAB + ":" + lab.getAddress().getPort() + path;
    }

    private String localUrl(String path) {
        return "http://127.0.0.1:" + local.getAddress().getPort() + path;
    }

    @Test
    void get_loopbackAddress_isRefusedWithoutConnecting() {
        ToolResult result = get(ToolSettings.defaults(root), localUrl("/admin/api/transcript?key=x"));

        assertThat(result.text()).isEqualTo("Error: refused: 127.0.0.1 is a loopback address; add it to agent.http_allow to allow it");
        assertThat(result.status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(localRequests).isEmpty();
    }

    @Test
    void get_otherLoopbackSpellings_areRefusedWithoutConnecting() {
        int port = local.getAddress().getPort();

        assertThat(get(ToolSettings.defaults(root), "http://2130706433:" + port + "/").text()).startsWith(
                "Error: refused: 127.0.0.1 is a loopback address (written 2130706433)");
        assertThat(get(ToolSettings.defaults(root), "http://0x7f.1:" + port + "/").text()).startsWith(
                "Error: refused: 127.0.0.1 is a loopback address;");
        assertThat(get(ToolSettings.defaults(root), "http://[::1]:" + port + "/").text()).startsWith(
                "Error: refused: ::1 is a loopback address;");
        assertThat(get(ToolSettings.defaults(root), "http://localhost:" + port + "/").text()).startsWith(
                "Error: refused: localhost resolves to ");
        assertThat(localRequests).isEmpty();
    }

    @Test
    void get_allowListedLabServer_answersWithTheMarkerAndNoCredentials() {
        ToolResult first = get(allowingLab(), labUrl("/"));
        ToolResult second = get(allowingLab(), labUrl("/"));

        assertThat(first.text()).startsWith("HTTP 200, text/plain, 8 bytes").endsWith("\n\nlab page");
        assertThat(second.ok()).isTrue();
        assertThat(labRequests).hasSize(2).allSatisfy(headers -> {
            assertThat(headers.get(ToolOrigin.HEADER)).containsExactly(ToolOrigin.TOKEN);
            assertThat(headers.containsKey("Cookie")).isFalse();
            assertThat(headers.containsKey("Authorization")).isFalse();
        });
    }

    @Test
    void get_redirectFromAnAllowedServerToALoopbackOne_isRefusedAtTheHop() {
        ToolResult result = get(allowingLab(), labUrl("/to-local"));

        assertThat(result.text()).isEqualTo("Error: refused: 127.0.0.1 is a loopback address; add it to agent.http_allow to allow it ("
                + labUrl("/to-local") + " redirected to " + localUrl("/admin/api/status") + ")");
        assertThat(localRequests).isEmpty();
    }

    @Test
    void get_redirectWithinTheAllowedServer_isFollowed() {
        ToolResult result = get(allowingLab(), labUrl("/to-page"));

        assertThat(result.text()).startsWith("HTTP 200, text/html; charset=utf-8, ").contains(" after 1 redirect(s)")
                .endsWith("\n\nTitle\nCafé & more");
    }

    @Test
    void get_endlessRedirects_stopAfterTheHopLimit() {
        assertThat(get(allowingLab(), labUrl("/loop")).text()).startsWith("Error: refused: stopped after 5 redirects");
    }

    @Test
    void get_urlWithCredentials_isRefused() {
        assertThat(get(allowingLab(), "http://user:pw@" + LAB + ":" + lab.getAddress().getPort() + "/").text())
                .isEqualTo("Error: refused: the URL carries a user name or password; http_get never sends credentials");
        assertThat(labRequests).isEmpty();
    }

    @Test
    void get_200KilobytesOfOpeningAngles_isAnsweredWellWithinTwoSeconds() {
        assertThat(get(allowingLab(), labUrl("/page")).ok()).isTrue(); // classes loaded: the bound is on the page, not on warm-up
        long start = System.nanoTime();

        ToolResult result = get(allowingLab(), labUrl("/angles"));

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        assertThat(result.text()).startsWith("HTTP 200, text/html, 200,000 bytes").contains("<<<<<<<<");
    }

    @Test
    void get_bodyOverTheByteLimit_isCutAtTheLimit() {
        ToolSettings small = new ToolSettings(null, null, root, null, ToolSettings.DEFAULT_RESULT_LIMIT, null, 1_024, List.of(LAB));

        ToolResult result = get(small, labUrl("/big"));

        assertThat(result.text()).contains("more than 1,024 bytes").contains("download stopped at the 1,024-byte limit");
    }

    @Test
    void get_slowerThanTheTimeLimit_failsWithTheLimit() {
        ToolSettings quick = allowingLab().withHttpTimeout(Duration.ofMillis(500));

        assertThat(get(quick, labUrl("/slow")).text()).isEqualTo("Error: GET " + labUrl("/slow") + " timed out after 500 ms");
    }

    @Test
    void get_stoppedWhileWaitingForASlowServer_returnsInterruptedWithinTwoSeconds() throws Exception {
        Interrupt interrupt = new Interrupt();
        CompletableFuture<ToolResult> running = CompletableFuture.supplyAsync(() -> get(allowingLab(), labUrl("/slow"), interrupt));
        assertThat(slowArrived.await(5, TimeUnit.SECONDS)).isTrue();

        long start = System.nanoTime();
        interrupt.raise("/stop");
        ToolResult result = running.get(5, TimeUnit.SECONDS);

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        assertThat(result.text()).isEqualTo("Interrupted: GET " + labUrl("/slow") + " was stopped (/stop)");
    }

    @Test
    void get_otherSchemes_areRefused() {
        assertThat(get(ToolSettings.defaults(root), "file:///etc/passwd").text())
                .isEqualTo("Error: refused: only http:// and https:// URLs can be fetched (got 'file:///etc/passwd')");
    }
}
