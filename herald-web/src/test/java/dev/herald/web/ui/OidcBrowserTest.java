package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Role;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.web.oidc.OidcSettings;
import dev.herald.web.ui.AccountsHttpTest.Browser;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single sign-on in headless Chromium ({@code browser/oidc.mjs}) against a real OpenID provider started here on
 * loopback: NAV's mock-oauth2-server, with discovery, keys, the code flow with PKCE and an interactive login form.
 */
class OidcBrowserTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void signInWithTheProvider_landsInTheOwnChat_whileAForeignDomainATamperedStateAndAReplayAreRefused_andSignOutEndsItThere()
            throws Exception {
        MockOAuth2Server provider = new MockOAuth2Server(OAuth2Config.Companion.fromJson("{\"interactiveLogin\": true}"));
        provider.start(InetAddress.getByName("127.0.0.1"), 0);
        try (WebUiFixture fx = WebUiFixture.withOidc(dir, new BrowserAgent(), base -> new OidcSettings(
                URI.create(provider.issuerUrl("default").toString()), "herald", "herald-client-secret", null, URI.create(base),
                List.of("example.com"), null, null, null, "Example SSO", Duration.ofSeconds(5), true))) {
            Browser admin = new Browser(fx.baseUrl());
            admin.post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");
            admin.post("/admin/api/users/create", "{\"name\":\"bob\",\"password\":\"bob's password\"}");
            Browser bob = new Browser(fx.baseUrl());
            assertThat(bob.signIn("bob", "bob's password").statusCode()).isEqualTo(200);
            assertThat(bob.post("/chat/api/send", "{\"conversation\":\"bobs-conv\",\"clientId\":\"m-bob-0001\",\"text\":\"my secret plan\"}")
                    .statusCode()).isEqualTo(200);

            java.util.Map<String, String> env = new java.util.HashMap<>(WebChatBrowserTest.env(fx));
            env.put("HERALD_OIDC_ISSUER", provider.issuerUrl("default").toString());
            try (BrowserScript script = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/oidc.mjs", env)) {
                assertThat(script.awaitStep("ann-signed-in", STEP).path("list").asText()).contains("hello as ann");
                assertThat(script.awaitStep("mallory-refused", STEP).path("reason").asText())
                        .isEqualTo("Your e-mail domain (evil.example) is not allowed here; this Herald lets in example.com only");
                assertThat(script.awaitStep("tampered-state", STEP).path("reason").asText())
                        .contains("The sign-in's state does not match the one this browser started");
                script.awaitStep("second-sign-in", STEP);
                assertThat(script.awaitStep("replayed", STEP).path("reason").asText()).contains("This sign-in was already used");
                script.awaitStep("signed-out-at-provider", STEP);
                script.awaitDone(STEP);
            }
            var ann = fx.storage.accounts().find("ann").orElseThrow();
            assertThat(ann.role()).isEqualTo(Role.USER);
            assertThat(fx.storage.accounts().find("mallory")).isEmpty();
            assertThat(fx.storage.accounts().list()).extracting(a -> a.name()).containsExactly("ann", "bob", "root");
        } finally {
            provider.shutdown();
        }
    }
}
