package dev.herald.web.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.agent.Agent;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.access.WebAccess;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real Herald minus the process: SQLite store in a temporary folder, the real gateway (built by the testkit's
 * {@link GatewayHarness}, which checks the store invariants on close), the web UI (chat, admin, metrics) on a free
 * loopback port, an agent of the test's choosing behind the metering wrapper; plus a JDK HTTP client that keeps
 * cookies.
 */
final class WebUiFixture implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    final GatewayHarness kit;
    final Storage storage;
    final HeraldMetrics metrics = new HeraldMetrics();
    final WebServer web;
    final WebUi ui;
    final Gateway gateway;
    /** Linked chats: the pages' side; a test plays the chat's side (/link) on it. */
    final dev.herald.core.account.Identities identities;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .cookieHandler(new java.net.CookieManager()).build();

    private WebUiFixture(Path dir, Agent agent, String key) {
        this(dir, agent, key, 0, null);
    }

    /**
     * @param port the web port (0: a free one)
     * @param oidc the single sign-on settings for this base URL, or null
     */
    private WebUiFixture(Path dir, Agent agent, String key, int port,
            java.util.function.Function<String, dev.herald.web.oidc.OidcSettings> oidc) {
        this(dir, agent, key, port, oidc, false);
    }

    /** The scheduled jobs behind {@code /schedule} ({@link #withSchedules}), else null. */
    final dev.herald.core.schedule.Schedules schedules;

    private WebUiFixture(Path dir, Agent agent, String key, int port,
            java.util.function.Function<String, dev.herald.web.oidc.OidcSettings> oidc, boolean withSchedules) {
        Clock clock = Clock.systemUTC();
        web = new WebServer(new WebServer.Settings("127.0.0.1", port));
        kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock).open(dir).closing(web);
        storage = kit.storage();
        ui = WebUi.create(web, key, storage, SessionKey.KeyPolicy.defaults(), metrics, clock);
        schedules = withSchedules ? new dev.herald.core.schedule.Schedules(storage.schedules(), clock, java.time.ZoneOffset.UTC, p -> true) : null;
        gateway = kit.gateway(new MeteredAgent(agent, metrics), ui.withAccountAdmins(new Allowlists(Map.of(ui.chat().platform(), AccessPolicy.allowAll()), false)),
                List.of(ui.chat()), List.of(), GatewaySettings.defaults().withApprovals(Duration.ofMinutes(5), false), metrics,
                b -> schedules == null ? b : b.command(new dev.herald.core.schedule.ScheduleCommand(schedules)));
        ui.attach(gateway);
        identities = new dev.herald.core.account.Identities(storage.identityLinks(), clock);
        ui.useIdentities(identities);
        if (oidc != null) {
            ui.useOidc(oidc.apply("http://127.0.0.1:" + port));
        }
        web.start();
        gateway.start(Gateway.StartOptions.normal());
    }

    static WebUiFixture start(Path dir, Agent agent) {
        return new WebUiFixture(dir, agent, null);
    }

    /** The web UI on a port chosen before it starts, with sign-in through the provider {@code oidc} gives for its base URL. */
    static WebUiFixture withOidc(Path dir, Agent agent, java.util.function.Function<String, dev.herald.web.oidc.OidcSettings> oidc) {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new WebUiFixture(dir, agent, null, port, oidc);
    }

    /** The web UI with the {@code /schedule} command on the store's jobs ({@link #schedules}). */
    static WebUiFixture withSchedules(Path dir, Agent agent) {
        return new WebUiFixture(dir, agent, null, 0, null, true);
    }

    static WebUiFixture withKey(Path dir, Agent agent, String key) {
        return new WebUiFixture(dir, agent, key);
    }

    String baseUrl() {
        return web.baseUrl();
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl() + path)).timeout(Duration.ofSeconds(20)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.build());
    }

    /** A POST as the page sends it: JSON with the anti-CSRF header. */
    HttpResponse<String> post(String path, String json) {
        return post(path, json, WebAccess.CSRF_HEADER, "1");
    }

    HttpResponse<String> post(String path, String json, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl() + path)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.build());
    }

    /** Sends a chat message as the page does. */
    HttpResponse<String> chat(String conversation, String clientId, String text) {
        return post("/chat/api/send", "{\"conversation\":\"" + conversation + "\",\"clientId\":\"" + clientId + "\",\"text\":"
                + quote(text) + "}");
    }

    /** Waits until the conversation's transcript has an assistant row with this text; returns the transcript. */
    JsonNode awaitReply(String conversation, String text) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode t = null;
        while (System.nanoTime() < deadline) {
            t = json(get("/chat/api/transcript?c=" + conversation));
            for (JsonNode row : t.path("rows")) {
                if (row.path("role").asText().equals("assistant") && row.path("text").asText().equals(text)) {
                    return t;
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError("no assistant row '" + text + "' in " + conversation + " within 20 s: " + t);
    }

    /** Waits until no turn runs and no lane is claimed: a reply is sent just before its turn hands the lane back. */
    void awaitIdle() {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (gateway.status().activeTurns() > 0 || gateway.status().claimedLanes() > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the gateway is still busy after 20 s: " + gateway.status());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for the gateway to be idle", e);
            }
        }
    }

    dev.herald.core.session.SessionKey key(String conversation) {
        return ui.chat().keyOf(conversation);
    }

    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A GET whose body is kept as bytes (a download). */
    HttpResponse<byte[]> getBytes(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).timeout(Duration.ofSeconds(20)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
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

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text, e);
        }
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    /** Checks the store invariants (the harness stops the gateway first), then closes the web server and the store. */
    @Override
    public void close() {
        kit.close();
    }
}
