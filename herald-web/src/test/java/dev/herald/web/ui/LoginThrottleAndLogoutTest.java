package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.MutableClock;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.access.AuthThrottle;
import dev.herald.web.access.SessionRevocations;
import dev.herald.web.access.WebAccess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pages' login under brute force, and logout ending the session on the server. */
class LoginThrottleAndLogoutTest {
    private static final String KEY = "sk-login-throttle-test-7391";

    @TempDir
    Path dir;

    @Test
    void wrongLogins_areThrottledWith429_whileABrowserAlreadyLoggedInKeepsWorking() {
        try (WebUiFixture fx = WebUiFixture.withKey(dir, new ScriptedAgent(), KEY)) {
            assertThat(fx.post("/auth/login", "{\"key\":\"" + KEY + "\"}").statusCode()).isEqualTo(200); // fx.http keeps the cookie
            HttpClient attacker = HttpClient.newHttpClient();

            int unauthorized = 0;
            HttpResponse<String> last = null;
            for (int i = 0; i < AuthThrottle.BURST + 5; i++) {
                last = send(attacker, fx.baseUrl() + "/auth/login", "{\"key\":\"guess-" + i + "\"}", null);
                if (last.statusCode() == 401) {
                    unauthorized++;
                }
            }
            HttpResponse<String> rightKey = send(attacker, fx.baseUrl() + "/auth/login", "{\"key\":\"" + KEY + "\"}", null);

            assertThat(unauthorized).isEqualTo(AuthThrottle.BURST);
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("Retry-After")).isPresent();
            assertThat(last.body()).contains("too many wrong keys");
            assertThat(rightKey.statusCode()).as("while throttled the answer says nothing about the key").isEqualTo(429);
            assertThat(rightKey.headers().firstValue("Set-Cookie")).isEmpty();
            assertThat(fx.get("/admin/api/status").statusCode()).as("the logged-in browser is not locked out").isEqualTo(200);
        }
    }

    @Test
    void logout_endsTheSessionOnTheServer_aCopiedCookieIsRefusedAfterwards() {
        try (WebUiFixture fx = WebUiFixture.withKey(dir, new ScriptedAgent(), KEY)) {
            HttpResponse<String> login = fx.post("/auth/login", "{\"key\":\"" + KEY + "\"}");
            String cookie = login.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
            HttpClient copy = HttpClient.newHttpClient();
            assertThat(get(copy, fx.baseUrl() + "/admin/api/status", cookie).statusCode()).as("a copy works before logout").isEqualTo(200);

            HttpResponse<String> logout = fx.post("/auth/logout", "{}");

            assertThat(logout.statusCode()).isEqualTo(200);
            assertThat(logout.headers().firstValue("Set-Cookie").orElseThrow()).contains("Max-Age=0");
            assertThat(get(copy, fx.baseUrl() + "/admin/api/status", cookie).statusCode()).as("the copy after logout").isEqualTo(401);
            assertThat(send(copy, fx.baseUrl() + "/auth/state", null, cookie).body()).contains("\"loggedIn\":false");
        }
    }

    @Test
    void logout_survivesARestart_throughTheRevocationFile_writtenOwnerOnly() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
        Path file = dir.resolve("web/logged_out_sessions");
        WebAccess before = new WebAccess(KEY, clock, new AuthThrottle(), SessionRevocations.persistedIn(file));
        String kept = before.issue();
        String ended = before.issue();

        before.revoke(ended);
        WebAccess afterRestart = new WebAccess(KEY, clock, new AuthThrottle(), SessionRevocations.persistedIn(file));

        assertThat(afterRestart.check(read(ended)).status()).isEqualTo(401);
        assertThat(afterRestart.check(read(kept)).allowed()).isTrue();
        assertThat(Files.readString(file)).doesNotContain(KEY).doesNotContain(ended);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        clock.advance(WebAccess.SESSION_LIFETIME.plus(Duration.ofMinutes(1)));
        String later = afterRestart.issue();
        afterRestart.revoke(later);
        assertThat(Files.readAllLines(file)).as("expired entries are dropped on the next write").hasSize(1);
    }

    private static WebAccess.Request read(String cookie) {
        return new WebAccess.Request("127.0.0.1", "127.0.0.1:8642", null, null, cookie, null, null, false, "http");
    }

    private static HttpResponse<String> get(HttpClient client, String url, String cookie) {
        return send(client, url, null, cookie);
    }

    private static HttpResponse<String> send(HttpClient client, String url, String json, String cookie) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (json != null) {
            b.header("Content-Type", "application/json").header(WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofString(json));
        }
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
