package dev.herald.web.oidc;

import dev.herald.core.Loopback;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code platforms.webchat.oidc:} sign-in to the web chat and admin page with the company's OpenID Connect provider
 * (authorization code flow with PKCE). Off by default; when on, the sign-in form offers "Sign in with LABEL" next to
 * the name and password. See docs/accounts.md, "Company single sign-on (OIDC)".
 */
public record OidcConfig(
        @Doc("offer sign-in with the OpenID Connect provider below")
        boolean enabled,
        @Doc("the provider's issuer URL, exactly as its /.well-known/openid-configuration names it; https (http only on a loopback host)")
        String issuer,
        @Doc("this Herald's client id at the provider")
        String clientId,
        @Doc("this Herald's client secret at the provider (e.g. ${HERALD_OIDC_SECRET}); empty for a public client")
        Secret clientSecret,
        @Doc("scopes asked for; must include openid")
        List<String> scopes,
        @Doc("Herald's address as browsers reach it (e.g. https://herald.example.com); the redirect URI to register at the provider is this plus `/auth/oidc/callback`")
        String redirectBaseUrl,
        @Doc("e-mail domains let in (e.g. [example.com]); empty = any domain")
        List<String> allowedEmailDomains,
        @Doc("groups let in, read from groups_claim; empty = any group")
        List<String> allowedGroups,
        @Doc("the ID token claim that lists a person's groups")
        String groupsClaim,
        @Doc("members of one of these groups get the admin role when their account is made; everyone else the user role")
        List<String> adminGroups,
        @Doc("the button's text: `Sign in with LABEL`")
        String label,
        @Doc("seconds each request to the provider (discovery, keys, code exchange) may take")
        int timeoutSeconds,
        @Doc("signing out of Herald also signs out at the provider (its end_session_endpoint, then back to redirect_base_url/; "
                + "register that as a post-logout redirect URI); false = only Herald's session ends")
        boolean signOutAtProvider) implements Validated {

    private static final Pattern CLIENT_ID = Pattern.compile("[\\x21-\\x7e]{1,255}");
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+");

    public OidcConfig {
        clientSecret = clientSecret == null ? Secret.NONE : clientSecret;
        scopes = scopes == null ? List.of() : List.copyOf(scopes);
        allowedEmailDomains = allowedEmailDomains == null ? List.of() : List.copyOf(allowedEmailDomains);
        allowedGroups = allowedGroups == null ? List.of() : List.copyOf(allowedGroups);
        adminGroups = adminGroups == null ? List.of() : List.copyOf(adminGroups);
        issuer = issuer == null ? "" : issuer.strip();
        clientId = clientId == null ? "" : clientId.strip();
        redirectBaseUrl = redirectBaseUrl == null ? "" : redirectBaseUrl.strip();
    }

    public static OidcConfig defaults() {
        return new OidcConfig(false, "", "", Secret.NONE, OidcSettings.DEFAULT_SCOPES, "", List.of(), List.of(), OidcSettings.DEFAULT_GROUPS_CLAIM,
                List.of(), OidcSettings.DEFAULT_LABEL, (int) OidcSettings.DEFAULT_TIMEOUT.toSeconds(), false);
    }

    /** The web side's settings (only meaningful once validated and enabled). */
    public OidcSettings settings() {
        return new OidcSettings(URI.create(issuer), clientId, clientSecret.reveal().orElse(""), scopes, URI.create(redirectBaseUrl),
                allowedEmailDomains, allowedGroups, groupsClaim, adminGroups, label, Duration.ofSeconds(timeoutSeconds), signOutAtProvider);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(timeoutSeconds >= 1 && timeoutSeconds <= 120, "timeout_seconds", "must be 1..120, was " + timeoutSeconds);
        if (!enabled) {
            return;
        }
        checkUrl(check, "issuer", issuer, "the provider's issuer, e.g. https://login.example.com/realms/staff");
        checkUrl(check, "redirect_base_url", redirectBaseUrl, "Herald's address as browsers reach it, e.g. https://herald.example.com");
        check.require(URI.create(issuer).getRawQuery() == null && URI.create(issuer).getRawFragment() == null, "issuer",
                "must not have a query or fragment, was \"" + issuer + "\"");
        check.require(CLIENT_ID.matcher(clientId).matches(), "client_id",
                "is required (the client id the provider gave this Herald: 1-255 printable characters, no spaces)");
        check.require(scopes.contains("openid"), "scopes", "must include openid (an ID token is what Herald checks), was " + scopes);
        check.require(scopes.stream().allMatch(s -> s.matches("[\\x21\\x23-\\x5b\\x5d-\\x7e]+")), "scopes",
                "must be scope names without spaces or quotes, was " + scopes);
        for (String d : allowedEmailDomains) {
            check.require(DOMAIN.matcher(d.strip().toLowerCase(java.util.Locale.ROOT)).matches(), "allowed_email_domains",
                    "must list domain names such as example.com (no @ or *), was \"" + d + "\"");
        }
        check.require(groupsClaim != null && groupsClaim.matches("[A-Za-z0-9_.:/-]{1,100}"), "groups_claim",
                "must be a claim name such as groups or roles, was \"" + groupsClaim + "\"");
        check.require(label != null && !label.isBlank() && label.length() <= 40, "label",
                "must be 1-40 characters (the button reads \"Sign in with <label>\"), was \"" + label + "\"");
    }

    private static void checkUrl(ConfigChecks check, String key, String value, String example) {
        URI uri;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            uri = null;
        }
        check.require(uri != null && uri.isAbsolute() && uri.getHost() != null && uri.getRawUserInfo() == null, key,
                "must be an absolute URL without credentials (" + example + "), was \"" + value + "\"");
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        check.require(https || "http".equalsIgnoreCase(uri.getScheme()) && Loopback.isHost(uri.getHost()), key,
                "must use https (plain http only on a loopback host such as 127.0.0.1, for tests), was \"" + value + "\"");
    }
}
