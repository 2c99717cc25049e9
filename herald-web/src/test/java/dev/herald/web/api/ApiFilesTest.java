package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.platform.OutboundFile;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.WebServer;
import dev.herald.web.metrics.HeraldMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file the agent sends (send_file) in an API session reaches the client as a Markdown link after the answer's text,
 * and the link serves the file with the API key (the real gateway on SQLite, the API on Jetty on loopback): the bytes
 * the agent wrote, as an attachment that cannot be sniffed into a page; without the key, for a turn of another platform,
 * or once the file is gone, no bytes.
 */
class ApiFilesTest {
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\((http://[^)]+)\\)");

    @TempDir
    Path dir;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ScriptedAgent agent = new ScriptedAgent();
    private GatewayHarness kit;
    private WebServer web;

    @BeforeEach
    void setUp() {
        Clock clock = Clock.systemUTC();
        web = new WebServer(WebServer.Settings.ephemeral());
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        ApiServerPlatform platform = new ApiServerPlatform(ApiFixture.settings(), agent, web, clock);
        Gateway gateway = kit.gateway(agent, new Allowlists(Map.of(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll()), false),
                List.of(platform), List.of(), GatewaySettings.defaults(), new HeraldMetrics());
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    @AfterEach
    void tearDown() {
        try {
            kit.close();
        } finally {
            http.close();
        }
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = Files.createDirectories(dir.resolve("workspace")).resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }

    @Test
    void sessionAnswerWithAFile_hasALinkAfterItsText_thatServesTheFileWithTheKey() throws Exception {
        byte[] csv = "quarter,revenue\nQ3,42\n".getBytes();
        agent.replyWithFiles("Here is the table.", file("report q3.csv", csv, "text/csv", "Q3 figures"));

        HttpResponse<String> r = http.send(request("/v1/chat/completions", ApiFixture.body("send me the report", false), "X-Herald-Session-Id",
                "files-1").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        String content = ApiFixture.json(r.body()).path("choices").path(0).path("message").path("content").asText();
        assertThat(content).startsWith("Here is the table.\n\nQ3 figures\n[report q3.csv](" + web.baseUrl() + "/v1/files/file-");
        Matcher link = LINK.matcher(content);
        assertThat(link.find()).isTrue();
        String url = link.group(2);

        HttpResponse<byte[]> got = http.send(get(url).header("Authorization", "Bearer " + ApiFixture.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(csv);
        assertThat(got.headers().firstValue("Content-Disposition").orElse("")).startsWith("attachment; filename=\"report_q3.csv\"")
                .contains("filename*=UTF-8''report%20q3.csv");
        assertThat(got.headers().firstValue("Content-Type").orElse("")).isEqualTo("application/octet-stream");
        assertThat(got.headers().firstValue("X-Content-Type-Options").orElse("")).isEqualTo("nosniff");

        HttpResponse<String> noKey = http.send(get(url).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noKey.statusCode()).isEqualTo(401);
        assertThat(noKey.body()).doesNotContain("quarter");

        Files.delete(dir.resolve("workspace/report q3.csv"));
        HttpResponse<String> gone = http.send(get(url).header("Authorization", "Bearer " + ApiFixture.KEY).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(ApiFixture.json(gone.body()).path("error").path("message").asText())
                .isEqualTo("the file report q3.csv is no longer in the conversation's workspace");
    }

    @Test
    void fileLink_namingNoFileOfAnApiTurn_is404_andAMalformedIdToo() throws Exception {
        agent.replyWithFiles("One file.", file("one.txt", "1".getBytes(), "text/plain", null));
        HttpResponse<String> r = http.send(request("/v1/chat/completions", ApiFixture.body("one", false), "X-Herald-Session-Id", "files-2")
                .build(), HttpResponse.BodyHandlers.ofString());
        String content = ApiFixture.json(r.body()).path("choices").path(0).path("message").path("content").asText();
        Matcher link = LINK.matcher(content);
        assertThat(link.find()).as(content).isTrue();
        String url = link.group(2);

        for (String other : List.of(url.replaceFirst("-0/content$", "-1/content"), url.replaceFirst("file-(\\d+)-", "file-9$1-"),
                web.baseUrl() + "/v1/files/file-..%2F..%2Fetc%2Fpasswd/content", web.baseUrl() + "/v1/files/abc/content")) {
            HttpResponse<String> miss = http.send(get(other).header("Authorization", "Bearer " + ApiFixture.KEY).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(miss.statusCode()).as(other).isEqualTo(404);
            assertThat(miss.body()).as(other).contains("no such file");
        }
    }

    @Test
    void streamedSessionAnswerWithAFile_endsWithTheLinkAndStop() throws Exception {
        agent.replyWithFiles("Chart attached.", file("chart.png", new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10}, "image/png", null));

        List<String> events = ApiFixture.events(http.send(request("/v1/chat/completions", ApiFixture.body("chart please", true),
                "X-Herald-Session-Id", "files-3").build(), HttpResponse.BodyHandlers.ofLines()));

        String text = String.join("", ApiFixture.contents(events));
        assertThat(text).startsWith("Chart attached.\n\n[chart.png](" + web.baseUrl() + "/v1/files/file-").endsWith("-0/content)");
        assertThat(events).anyMatch(e -> e.contains("\"finish_reason\":\"stop\""));
        Matcher link = LINK.matcher(text);
        assertThat(link.find()).isTrue();
        HttpResponse<byte[]> got = http.send(get(link.group(2)).header("Authorization", "Bearer " + ApiFixture.KEY).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.headers().firstValue("Content-Type").orElse("")).isEqualTo("image/png");
        assertThat(got.headers().firstValue("Content-Disposition").orElse("")).startsWith("inline;");
    }

    private HttpRequest.Builder request(String path, String body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(web.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + ApiFixture.KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b;
    }

    private static HttpRequest.Builder get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET();
    }
}
