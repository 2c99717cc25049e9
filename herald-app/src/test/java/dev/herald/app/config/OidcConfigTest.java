package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.web.oidc.OidcSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code platforms.webchat.oidc}: off by default, its settings, and the rules that stop a start with a clear message. */
class OidcConfigTest {
    private static final String SECRET = "s3cr3t-client-value-42";

    @TempDir
    Path home;

    private ConfigFixture fixture() {
        return new ConfigFixture(home);
    }

    @Test
    void oidc_isOffByDefault_withTheStandardScopes() {
        HeraldConfig c = fixture().write("platforms:\n  webchat:\n    enabled: true\n").load().config();

        assertThat(c.platforms().webchat().oidc().enabled()).isFalse();
        assertThat(c.platforms().webchat().oidc().scopes()).containsExactly("openid", "email", "profile");
    }

    @Test
    void enabledOidc_becomesTheWebSettings_andTheSecretIsMaskedInThePrintout() {
        LoadedConfig loaded = fixture().write("""
                platforms:
                  webchat:
                    oidc:
                      enabled: true
                      issuer: https://login.example.com/realms/staff
                      client_id: herald
                      client_secret: ${OIDC_SECRET}
                      redirect_base_url: https://herald.example.com/
                      allowed_email_domains: [Example.com]
                      admin_groups: [herald-admins]
                      label: Example SSO
                """).load(Map.of("OIDC_SECRET", SECRET));

        OidcSettings s = loaded.config().platforms().webchat().oidc().settings();
        assertThat(s.clientSecret()).isEqualTo(SECRET);
        assertThat(s.redirectUri()).isEqualTo("https://herald.example.com/auth/oidc/callback");
        assertThat(s.allowedEmailDomains()).isEqualTo(List.of("example.com"));
        assertThat(s.label()).isEqualTo("Example SSO");
        assertThat(s.toString()).doesNotContain(SECRET).contains("clientSecret=****");
        assertThat(loaded.effective()).doesNotContain(SECRET).contains("client_secret: ****");
    }

    @Test
    void plainHttpIssuer_onAnotherHost_isRefused() {
        String error = fixture().error("platforms:\n  webchat:\n    oidc:\n      enabled: true\n      issuer: http://login.example.com\n"
                + "      client_id: herald\n      redirect_base_url: https://herald.example.com\n");

        assertThat(error).contains("platforms.webchat.oidc.issuer must use https (plain http only on a loopback host");
    }

    @Test
    void plainHttpIssuer_onLoopback_isAccepted() {
        HeraldConfig c = fixture().write("platforms:\n  webchat:\n    oidc:\n      enabled: true\n      issuer: http://127.0.0.1:9000/default\n"
                + "      client_id: herald\n      redirect_base_url: http://localhost:8642\n").load().config();

        assertThat(c.platforms().webchat().oidc().settings().issuerText()).isEqualTo("http://127.0.0.1:9000/default");
    }

    @Test
    void missingClientId_andMissingOpenidScope_areNamed() {
        String base = "platforms:\n  webchat:\n    oidc:\n      enabled: true\n      issuer: https://login.example.com\n"
                + "      redirect_base_url: https://herald.example.com\n";

        assertThat(fixture().error(base)).contains("platforms.webchat.oidc.client_id is required");
        assertThat(fixture().error(base + "      client_id: herald\n      scopes: [email]\n"))
                .contains("platforms.webchat.oidc.scopes must include openid");
    }

    @Test
    void missingRedirectBaseUrl_andAWildcardDomain_areNamed() {
        String base = "platforms:\n  webchat:\n    oidc:\n      enabled: true\n      issuer: https://login.example.com\n      client_id: herald\n";

        assertThat(fixture().error(base)).contains("platforms.webchat.oidc.redirect_base_url must be an absolute URL");
        assertThat(fixture().error(base + "      redirect_base_url: https://h.example.com\n      allowed_email_domains: ['*.example.com']\n"))
                .contains("platforms.webchat.oidc.allowed_email_domains must list domain names");
    }
}
