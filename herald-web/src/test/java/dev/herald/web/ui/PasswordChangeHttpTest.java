package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.access.AuthThrottle;
import dev.herald.web.access.WebAccess;
import dev.herald.web.oidc.OidcAccounts;
import dev.herald.web.ui.AccountsHttpTest.Browser;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A signed-in person changes their own password over real HTTP on a real SQLite store. */
class PasswordChangeHttpTest {
    @TempDir
    Path dir;

    private static String change(String current, String password, String again) {
        return "{\"current\":\"" + current + "\",\"password\":\"" + password + "\",\"again\":\"" + again + "\"}";
    }

    @Test
    void changingTheOwnPassword_needsTheCurrentOneAndTheNewTwice_andEndsTheOtherSessionsOnly() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            Browser ann = new Browser(fx.baseUrl());
            ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            ann.post("/admin/api/users/create", "{\"name\":\"bob\",\"role\":\"user\",\"password\":\"bob's password\"}");
            Browser laptop = new Browser(fx.baseUrl());
            Browser phone = new Browser(fx.baseUrl());
            assertThat(laptop.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(phone.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(WebUiFixture.json(laptop.get("/auth/state")).path("user").path("password").asBoolean())
                    .as("the page may offer the change").isTrue();

            HttpResponse<String> wrong = laptop.post("/auth/password", change("not bob's password", "bob's new password", "bob's new password"));
            assertThat(wrong.statusCode()).isEqualTo(403);
            assertThat(wrong.body()).contains("your current password is not that one");
            HttpResponse<String> differ = laptop.post("/auth/password", change("bob's password", "bob's new password", "bob's new pasword"));
            assertThat(differ.statusCode()).isEqualTo(400);
            assertThat(differ.body()).contains("the two new passwords differ");
            HttpResponse<String> tooShort = laptop.post("/auth/password", change("bob's password", "short", "short"));
            assertThat(tooShort.statusCode()).isEqualTo(400);
            assertThat(tooShort.body()).contains("new password: a password is 8 to 256 characters");
            assertThat(new Browser(fx.baseUrl()).post("/auth/password", change("bob's password", "mallory's password", "mallory's password"))
                    .statusCode()).as("nobody signed in").isEqualTo(401);

            HttpResponse<String> changed = laptop.post("/auth/password", change("bob's password", "bob's new password", "bob's new password"));
            assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
            assertThat(laptop.get("/chat/api/conversations").statusCode()).as("this browser stays signed in").isEqualTo(200);
            assertThat(phone.get("/chat/api/conversations").statusCode()).as("the other session ended").isEqualTo(401);
            assertThat(new Browser(fx.baseUrl()).signIn("bob", "bob's password").statusCode()).as("the old password").isEqualTo(401);
            assertThat(phone.signIn("bob", "bob's new password").statusCode()).isEqualTo(200);
            assertThat(fx.storage.accounts().find("bob").orElseThrow().passwordHash()).startsWith("$argon2id$").doesNotContain("new password");
            assertThat(ann.get("/admin/api/users").statusCode()).as("another account's session").isEqualTo(200);
        }
    }

    @Test
    void wrongCurrentPasswords_areThrottledAsSignIns() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            Browser ann = new Browser(fx.baseUrl());
            ann.post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            HttpResponse<String> last = null;
            int refused = 0;
            for (int i = 0; i < AuthThrottle.BURST + 1; i++) {
                last = ann.post("/auth/password", change("guess " + i, "a new long password", "a new long password"));
                refused += last.statusCode() == 403 ? 1 : 0;
            }
            assertThat(refused).isEqualTo(AuthThrottle.BURST);
            assertThat(last.statusCode()).isEqualTo(429);
            assertThat(last.headers().firstValue("Retry-After")).isPresent();
            assertThat(ann.post("/auth/password", change("ann's long password", "a new long password", "a new long password")).statusCode())
                    .as("the right password while throttled").isEqualTo(429);
            assertThat(ann.get("/admin/api/users").statusCode()).as("still signed in, password unchanged").isEqualTo(200);
        }
    }

    @Test
    void beforeAnyAccount_theOneUserIsToldThereIsNoPasswordToChange() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            HttpResponse<String> refused = new Browser(fx.baseUrl()).post("/auth/password", change("x", "a new long password", "a new long password"));
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("there are no accounts yet, so there is no password to change");
            assertThat(fx.storage.accounts().any()).isFalse();
        }
    }

    @Test
    void anAccountOfSingleSignOn_isToldToChangeItAtItsProvider() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            new Browser(fx.baseUrl()).post("/auth/setup", "{\"name\":\"ann\",\"password\":\"ann's long password\"}");
            Account cy = new Account("cy", Role.USER, OidcAccounts.NO_PASSWORD, false, java.time.Instant.now(), 0);
            fx.storage.accounts().create(cy);
            String cookie = WebAccess.COOKIE + "=" + fx.ui.accounts().issue(cy);
            Browser browser = new Browser(fx.baseUrl());

            HttpResponse<String> state = browser.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(fx.baseUrl() + "/auth/state"))
                    .header("Cookie", cookie).GET());
            assertThat(WebUiFixture.json(state).path("user").path("password").asBoolean()).isFalse();
            HttpResponse<String> refused = browser.post("/auth/password", change("", "a new long password", "a new long password"),
                    "Cookie", cookie);
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.body()).contains("your account 'cy' signs in through your single sign-on provider and has no Herald password");
            assertThat(fx.storage.accounts().find("cy").orElseThrow().passwordHash()).isEqualTo(OidcAccounts.NO_PASSWORD);
        }
    }
}
