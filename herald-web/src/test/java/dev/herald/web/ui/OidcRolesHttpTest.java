package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.account.Role;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.web.access.WebAccess;
import dev.herald.web.oidc.OidcSettings;
import dev.herald.web.ui.AccountsHttpTest.Browser;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roles from the provider's groups, and signing out at the provider, over real HTTP against a real OpenID provider on loopback (NAV's mock-oauth2-server,
 * which answers the authorization request at once with the claims the test queues): the whole code flow, followed by a
 * plain HTTP client.
 */
class OidcRolesHttpTest {
    @TempDir
    Path dir;
    private MockOAuth2Server provider;

    @BeforeEach
    void startProvider() throws Exception {
        provider = new MockOAuth2Server();
        provider.start(InetAddress.getByName("127.0.0.1"), 0);
    }

    @AfterEach
    void stopProvider() {
        provider.shutdown();
    }

    private WebUiFixture herald(List<String> adminGroups) {
        return herald(adminGroups, false);
    }

    private WebUiFixture herald(List<String> adminGroups, boolean signOutAtProvider) {
        return WebUiFixture.withOidc(dir, new ScriptedAgent(), base -> new OidcSettings(URI.create(provider.issuerUrl("default").toString()),
                "herald", "herald-client-secret", null, URI.create(base), List.of("example.com"), null, "groups", adminGroups, "Example SSO",
                Duration.ofSeconds(5), signOutAtProvider));
    }

    private static JsonNode logout(WebUiFixture fx, HttpClient browser) throws Exception {
        return WebUiFixture.json(browser.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/auth/logout"))
                .header("Content-Type", "application/json").header(WebAccess.CSRF_HEADER, "1")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString()));
    }

    /** A browser that signs in through the provider as hal, in {@code groups}; returns its cookies' client. */
    private HttpClient signIn(WebUiFixture fx, List<String> groups) throws Exception {
        provider.enqueueCallback(new DefaultOAuth2TokenCallback("default", "hal-subject", "JWT", List.of("herald"),
                Map.of("email", "hal@example.com", "preferred_username", "hal", "groups", groups), 3600));
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> landed = browser.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/auth/oidc/start"))
                .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(landed.statusCode()).as(landed.body()).isEqualTo(200);
        assertThat(landed.uri().getPath()).isEqualTo("/auth/oidc/callback");
        return browser;
    }

    private static JsonNode state(WebUiFixture fx, HttpClient browser) throws Exception {
        return WebUiFixture.json(browser.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/auth/state")).GET().build(),
                HttpResponse.BodyHandlers.ofString()));
    }

    @Test
    void withAdminGroups_eachSignInTakesTheRoleFromTheGroups_promotedThenDemoted() throws Exception {
        try (WebUiFixture fx = herald(List.of("herald-admins"))) {
            new Browser(fx.baseUrl()).post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");

            HttpClient first = signIn(fx, List.of("staff"));
            assertThat(state(fx, first).path("user").path("role").asText()).isEqualTo("user");
            HttpClient promoted = signIn(fx, List.of("staff", "herald-admins"));
            assertThat(state(fx, promoted).path("user").path("role").asText()).isEqualTo("admin");
            assertThat(state(fx, first).path("user").path("role").asText()).as("hal's earlier session follows").isEqualTo("admin");
            assertThat(fx.storage.accounts().find("hal").orElseThrow().role()).isEqualTo(Role.ADMIN);

            HttpClient demoted = signIn(fx, List.of("staff"));
            assertThat(state(fx, demoted).path("user").path("role").asText()).isEqualTo("user");
            assertThat(demoted.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/admin/api/users")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).as("the admin page after the demotion").isEqualTo(403);
            assertThat(fx.storage.accounts().list()).extracting(a -> a.name()).containsExactly("hal", "root");

            HttpResponse<String> password = demoted.send(HttpRequest.newBuilder(URI.create(fx.baseUrl() + "/auth/password"))
                    .header("Content-Type", "application/json").header(WebAccess.CSRF_HEADER, "1")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"current\":\"\",\"password\":\"a long password\",\"again\":\"a long password\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(password.statusCode()).isEqualTo(409);
            assertThat(password.body()).contains("your account 'hal' signs in through Example SSO and has no Herald password; change your password there");
        }
    }

    @Test
    void withoutAdminGroups_theRoleAnAdminGaveStays() throws Exception {
        try (WebUiFixture fx = herald(null)) {
            new Browser(fx.baseUrl()).post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");
            assertThat(state(fx, signIn(fx, List.of("herald-admins"))).path("user").path("role").asText()).isEqualTo("user");
            fx.storage.accounts().setRole("hal", Role.ADMIN);

            HttpClient hal = signIn(fx, List.of());
            assertThat(state(fx, hal).path("user").path("role").asText()).isEqualTo("admin");
            assertThat(fx.storage.accounts().find("hal").orElseThrow().role()).isEqualTo(Role.ADMIN);
            JsonNode out = logout(fx, hal);
            assertThat(out.path("loggedIn").asBoolean(true)).isFalse();
            assertThat(out.has("signOutAt")).as("sign_out_at_provider is off: only Herald's session ends").isFalse();
        }
    }

    @Test
    void signOutAtTheProvider_sendsASingleSignOnAccountThroughItsEndSessionAndBack_whileAPasswordAccountOnlySignsOut() throws Exception {
        try (WebUiFixture fx = herald(null, true)) {
            Browser root = new Browser(fx.baseUrl());
            root.post("/auth/setup", "{\"name\":\"root\",\"password\":\"root's long password\"}");
            HttpClient hal = signIn(fx, List.of("staff"));
            assertThat(state(fx, hal).path("user").path("name").asText()).isEqualTo("hal");

            JsonNode out = logout(fx, hal);

            String back = fx.baseUrl() + "/";
            assertThat(out.path("signOutAt").asText()).isEqualTo(provider.endSessionEndpointUrl("default") + "?client_id=herald"
                    + "&post_logout_redirect_uri=" + java.net.URLEncoder.encode(back, java.nio.charset.StandardCharsets.UTF_8));
            HttpResponse<String> landed = hal.send(HttpRequest.newBuilder(URI.create(out.path("signOutAt").asText()))
                    .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(landed.uri().toString()).as("the provider sends the browser back to Herald").isEqualTo(back);
            assertThat(landed.statusCode()).isEqualTo(200);
            assertThat(state(fx, hal).path("loggedIn").asBoolean(true)).as("signed out of Herald").isFalse();

            JsonNode rootOut = WebUiFixture.json(root.post("/auth/logout", "{}"));
            assertThat(rootOut.has("signOutAt")).as("a password account has no session at the provider").isFalse();
        }
    }
}
