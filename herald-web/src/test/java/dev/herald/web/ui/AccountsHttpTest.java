package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.access.AuthThrottle;
import dev.herald.web.access.WebAccess;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Web accounts over real HTTP on a real SQLite store: the first admin, sign-in, roles, and sessions that end. */
class AccountsHttpTest {
    private static final String KEY = "sk-accounts-test-5521";

    @TempDir
    Path dir;

    /** A browser of its own (its own cookies). */
    static final class Browser {
        final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();
        final String base;

        Browser(String base) {
            this.base = base;
        }

        HttpResponse<String> get(String path) {
            return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
        }

        HttpResponse<String> post(String path, String json, String... headers) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                    .header(WebAccess.CSRF_HEADER, "1").POST(HttpRequest.BodyPublishers.ofString(json));
            if (headers.length > 0) {
                b.headers(headers);
            }
            return send(b);
        }

        HttpResponse<String> signIn(String name, String password) {
            return post("/auth/login", "{\"name\":\"" + name + "\",\"password\":\"" + password + "\"}");
        }

        HttpResponse<String> send(HttpRequest.Builder b) {
            try {
                return http.send(b.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void firstRun_fromThisMachine_makesTheAdmin_thenPagesNeedASignIn_andTheAnonymousUserIsGone() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            Browser ann = new Browser(fx.baseUrl());
            JsonNode before = WebUiFixture.json(ann.get("/auth/state"));
            assertThat(before.path("setup").asBoolean()).isTrue();
            assertThat(before.path("accounts").asBoolean()).isFalse();
            assertThat(ann.get("/admin/api/users").statusCode()).as("the one user of a fresh install is the admin").isEqualTo(200);

            HttpResponse<String> setup = ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            assertThat(setup.statusCode()).as(setup.body()).isEqualTo(200);

            JsonNode after = WebUiFixture.json(ann.get("/auth/state"));
            assertThat(after.path("user").path("name").asText()).isEqualTo("ann");
            assertThat(after.path("user").path("role").asText()).isEqualTo("admin");
            assertThat(after.path("setup").asBoolean()).isFalse();
            assertThat(ann.post("/auth/setup", "{\"name\":\"eve\",\"password\":\"eve's long password\"}").statusCode())
                    .as("a second first admin").isEqualTo(409);
            Browser stranger = new Browser(fx.baseUrl());
            assertThat(stranger.get("/chat/api/conversations").statusCode()).as("no anonymous user once accounts exist").isEqualTo(401);
            assertThat(fx.storage.accounts().find("ann").orElseThrow().passwordHash()).startsWith("$argon2id$").doesNotContain("long password");
        }
    }

    @Test
    void firstRun_fromElsewhere_needsTheSetupCodeFromTheLog() {
        try (WebUiFixture fx = WebUiFixture.withKey(dir, new ScriptedAgent(), KEY)) {
            Browser proxied = new Browser(fx.baseUrl());
            String[] viaProxy = {"X-Forwarded-For", "127.0.0.9"}; // a reverse proxy on this machine: the client is not local
            HttpResponse<String> noCode = proxied.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}", viaProxy);
            assertThat(noCode.statusCode()).isEqualTo(403);
            assertThat(noCode.body()).contains("setup code");

            HttpResponse<String> withCode = proxied.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\",\"code\":\""
                    + fx.ui.accounts().setupCode().toLowerCase() + "\"}", viaProxy);
            assertThat(withCode.statusCode()).as(withCode.body()).isEqualTo(200);
            assertThat(WebUiFixture.json(proxied.get("/auth/state")).path("user").path("name").asText()).isEqualTo("ann");
            // the key no longer signs in on the pages once accounts exist; it stays an admin bearer
            HttpResponse<String> keyLogin = new Browser(fx.baseUrl()).post("/auth/login", "{\"key\":\"" + KEY + "\"}");
            assertThat(keyLogin.statusCode()).isEqualTo(401);
            HttpResponse<String> bearer = new Browser(fx.baseUrl()).send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/admin/api/users"))
                    .header("Authorization", "Bearer " + KEY).GET());
            assertThat(bearer.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void users_signIn_seeNoAdminPages_andDisableResetAndSignOutEndTheirSessions() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            Browser admin = new Browser(fx.baseUrl());
            admin.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            HttpResponse<String> made = admin.post("/admin/api/users/create", "{\"name\":\"bob\",\"role\":\"user\",\"password\":\"bob's password\"}");
            assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
            assertThat(admin.post("/admin/api/users/create", "{\"name\":\"cid\",\"password\":\"short\"}").body())
                    .contains("a password is 8 to 256 characters");

            Browser bob = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "not bob's password").statusCode()).isEqualTo(401);
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(bob.get("/chat/api/conversations").statusCode()).isEqualTo(200);
            assertThat(bob.get("/admin/api/users").statusCode()).as("a user on the admin API").isEqualTo(403);
            assertThat(bob.get("/admin/api/status").statusCode()).isEqualTo(403);
            assertThat(bob.post("/admin/api/users/create", "{\"name\":\"mal\",\"role\":\"admin\",\"password\":\"mal's password\"}").statusCode())
                    .isEqualTo(403);

            admin.post("/admin/api/users/sign-out", "{\"name\":\"bob\"}");
            assertThat(bob.get("/chat/api/conversations").statusCode()).as("after sign out everywhere").isEqualTo(401);

            bob.signIn("bob", "bob's password");
            admin.post("/admin/api/users/reset", "{\"name\":\"bob\",\"password\":\"bob's new password\"}");
            assertThat(bob.get("/chat/api/conversations").statusCode()).as("after a password reset").isEqualTo(401);
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(401);

            assertThat(bob.signIn("bob", "bob's new password").statusCode()).isEqualTo(200);
            admin.post("/admin/api/users/disable", "{\"name\":\"bob\"}");
            assertThat(bob.get("/chat/api/conversations").statusCode()).as("after disable").isEqualTo(401);
            assertThat(bob.signIn("bob", "bob's new password").statusCode()).as("a disabled account signing in").isEqualTo(401);
            JsonNode users = WebUiFixture.json(admin.get("/admin/api/users"));
            assertThat(users.path("users").toString()).contains("\"name\":\"bob\"", "\"disabled\":true");
        }
    }

    @Test
    void wrongPasswords_areThrottledLikeWrongKeys() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            new Browser(fx.baseUrl()).post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            Browser attacker = new Browser(fx.baseUrl());
            int unauthorized = 0;
            HttpResponse<String> last = null;
            for (int i = 0; i < AuthThrottle.BURST + 2; i++) {
                last = attacker.signIn("ann", "guess number " + i);
                unauthorized += last.statusCode() == 401 ? 1 : 0;
            }
            assertThat(unauthorized).isEqualTo(AuthThrottle.BURST);
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("Retry-After")).isPresent();
            assertThat(attacker.signIn("ann", "ann's long password").statusCode()).as("the right password while throttled").isEqualTo(429);
        }
    }

    @Test
    void anInvitation_isTakenOnceWithItsCode_byNobodyElse_andOnlyAnAdminInvites() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            Browser ann = new Browser(fx.baseUrl());
            assertThat(ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}").statusCode()).isEqualTo(200);
            assertThat(ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's long password\"}").statusCode()).isEqualTo(200);

            HttpResponse<String> first = ann.post("/admin/api/users/invite", "{\"name\":\"dan\"}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
            String oldCode = WebUiFixture.json(first).path("link").asText().substring("/#invite=dan.".length());
            assertThat(WebUiFixture.json(ann.get("/admin/api/users")).path("users").findValues("invitedUntil")).hasSize(1);
            HttpResponse<String> again = ann.post("/admin/api/users/invite", "{\"name\":\"dan\"}");
            String code = WebUiFixture.json(again).path("link").asText().substring("/#invite=dan.".length());
            assertThat(code).as("inviting again makes a new code").isNotEqualTo(oldCode);
            assertThat(ann.post("/admin/api/users/invite", "{\"name\":\"dan\",\"role\":\"admin\"}").statusCode())
                    .as("another role for a pending invitation").isEqualTo(409);
            assertThat(ann.post("/admin/api/users/invite", "{\"name\":\"bob\"}").statusCode()).as("an account with a password").isEqualTo(409);

            Browser bob = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's long password").statusCode()).isEqualTo(200);
            assertThat(bob.post("/admin/api/users/invite", "{\"name\":\"mallory\"}").statusCode()).as("a user invites nobody").isEqualTo(403);

            Browser dan = new Browser(fx.baseUrl());
            assertThat(dan.signIn("dan", code).statusCode()).as("the code is no password").isEqualTo(401);
            assertThat(dan.post("/auth/invite", "{\"name\":\"dan\",\"code\":\"" + oldCode + "\",\"password\":\"dan's long password\"}")
                    .statusCode()).as("the replaced link").isEqualTo(403);
            assertThat(dan.post("/auth/invite", "{\"name\":\"bob\",\"code\":\"" + code + "\",\"password\":\"taking bob's account\"}")
                    .statusCode()).as("dan's code for bob's account").isEqualTo(403);
            assertThat(dan.post("/auth/invite", "{\"name\":\"dan\",\"code\":\"" + code + "\",\"password\":\"short\"}").statusCode())
                    .as("a password too short").isEqualTo(400);
            HttpResponse<String> taken = dan.post("/auth/invite", "{\"name\":\"dan\",\"code\":\"" + code + "\",\"password\":\"dan's long password\"}");
            assertThat(taken.statusCode()).as(taken.body()).isEqualTo(200);
            assertThat(WebUiFixture.json(dan.get("/auth/state")).path("user").path("name").asText()).isEqualTo("dan");
            assertThat(dan.get("/chat/api/conversations").statusCode()).isEqualTo(200);

            Browser eve = new Browser(fx.baseUrl());
            assertThat(eve.post("/auth/invite", "{\"name\":\"dan\",\"code\":\"" + code + "\",\"password\":\"eve's long password\"}")
                    .statusCode()).as("the link works once").isEqualTo(403);
            assertThat(eve.signIn("dan", "dan's long password").statusCode()).isEqualTo(200);
            assertThat(fx.storage.accounts().find("dan").orElseThrow().role().wire()).isEqualTo("user");
            assertThat(fx.storage.accounts().find("bob").orElseThrow().invited()).isFalse();
        }
    }
}
