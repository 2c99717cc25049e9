package dev.herald.web.oidc;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How the web pages sign people in with the company's OpenID Connect provider (made by {@link OidcConfig#settings()}, which the
 * configuration loader checked). {@link #toString()} masks the client secret, so the record may be logged.
 *
 * @param issuer              the provider's issuer URL, exactly as its discovery document names it
 * @param clientSecret        the client's secret at the provider; sent only to the token endpoint
 * @param redirectBaseUrl     Herald's public base URL; the provider sends browsers back to {@link #redirectUri()}
 * @param allowedEmailDomains e-mail domains let in (empty: any), lower case
 * @param allowedGroups       groups let in (empty: any), read from {@code groupsClaim}
 * @param adminGroups         members of one of these groups get the admin role when their account is made
 * @param timeout             connect and answer timeout of each request to the provider
 * @param signOutAtProvider   whether signing out of Herald also ends the person's session at the provider (RP-initiated
 *                            logout: the browser goes to the provider's end_session_endpoint and comes back to Herald)
 */
public record OidcSettings(URI issuer, String clientId, String clientSecret, List<String> scopes, URI redirectBaseUrl,
        List<String> allowedEmailDomains, List<String> allowedGroups, String groupsClaim, List<String> adminGroups, String label,
        Duration timeout, boolean signOutAtProvider) {

    /** Where the provider sends the browser back; register it at the provider. */
    public static final String CALLBACK_PATH = "/auth/oidc/callback";
    /** What is used where {@code platforms.webchat.oidc} leaves a key out. */
    public static final List<String> DEFAULT_SCOPES = List.of("openid", "email", "profile");
    public static final String DEFAULT_GROUPS_CLAIM = "groups";
    public static final String DEFAULT_LABEL = "single sign-on";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    public OidcSettings {
        Objects.requireNonNull(issuer, "issuer");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(redirectBaseUrl, "redirectBaseUrl");
        clientSecret = clientSecret == null ? "" : clientSecret;
        scopes = List.copyOf(scopes == null || scopes.isEmpty() ? DEFAULT_SCOPES : scopes);
        allowedEmailDomains = allowedEmailDomains == null ? List.of()
                : allowedEmailDomains.stream().map(d -> d.strip().toLowerCase(Locale.ROOT)).toList();
        allowedGroups = List.copyOf(allowedGroups == null ? List.of() : allowedGroups);
        adminGroups = List.copyOf(adminGroups == null ? List.of() : adminGroups);
        groupsClaim = groupsClaim == null || groupsClaim.isBlank() ? DEFAULT_GROUPS_CLAIM : groupsClaim.strip();
        label = label == null || label.isBlank() ? DEFAULT_LABEL : label.strip();
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    }

    /** Signing out of Herald only (the provider's session stays). */
    public OidcSettings(URI issuer, String clientId, String clientSecret, List<String> scopes, URI redirectBaseUrl,
            List<String> allowedEmailDomains, List<String> allowedGroups, String groupsClaim, List<String> adminGroups, String label,
            Duration timeout) {
        this(issuer, clientId, clientSecret, scopes, redirectBaseUrl, allowedEmailDomains, allowedGroups, groupsClaim, adminGroups, label,
                timeout, false);
    }

    /** Where the provider sends the browser back after signing out there: Herald's front page. */
    public String postLogoutRedirectUri() {
        return base() + "/";
    }

    /** The redirect URI: the base URL without a trailing slash, then {@value #CALLBACK_PATH}. */
    public String redirectUri() {
        return base() + CALLBACK_PATH;
    }

    /** The redirect base URL without trailing slashes. */
    private String base() {
        String base = redirectBaseUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return base;
    }

    /** The issuer as compared with the token's {@code iss}: the configured text, without a trailing slash added or removed. */
    public String issuerText() {
        return issuer.toString();
    }

    @Override
    public String toString() {
        return "OidcSettings[issuer=" + issuer + ", clientId=" + clientId + ", clientSecret=" + (clientSecret.isEmpty() ? "(not set)" : "****")
                + ", scopes=" + scopes + ", redirectUri=" + redirectUri() + ", allowedEmailDomains=" + allowedEmailDomains + ", allowedGroups="
                + allowedGroups + ", groupsClaim=" + groupsClaim + ", adminGroups=" + adminGroups + ", label=" + label
                + ", signOutAtProvider=" + signOutAtProvider + "]";
    }
}
