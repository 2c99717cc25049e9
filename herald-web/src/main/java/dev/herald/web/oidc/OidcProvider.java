package dev.herald.web.oidc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider as Herald talks to it over {@code java.net.http}: its discovery document
 * ({@code <issuer>/.well-known/openid-configuration}, fetched on first use and kept for {@link #DISCOVERY_LIFETIME}),
 * its signing keys (the JWKS, kept until a token names a key id it does not hold; then fetched again, at most once per
 * {@link #KEY_REFETCH_INTERVAL}, so tokens with made-up key ids cannot make Herald hammer the provider), and the code
 * exchange at its token endpoint. Every request has the settings' timeout, follows no redirect and reads at most
 * {@link #MAX_BODY} bytes. Nothing here logs the client secret or a token.
 */
public final class OidcProvider implements JWKSource<SecurityContext> {
    private static final Logger log = LoggerFactory.getLogger(OidcProvider.class);
    static final Duration DISCOVERY_LIFETIME = Duration.ofHours(1);
    static final Duration KEY_REFETCH_INTERVAL = Duration.ofSeconds(30);
    static final int MAX_BODY = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What Herald uses of the discovery document; {@code endSessionEndpoint} is null when the provider names none. */
    public record Discovery(String issuer, URI authorizationEndpoint, URI tokenEndpoint, URI jwksUri, List<String> authMethods,
            URI endSessionEndpoint) {
    }

    private final OidcSettings settings;
    private final Clock clock;
    private final HttpClient http;
    private Discovery discovery;
    private Instant discoveredAt = Instant.MIN;
    private JWKSet keys;
    private Instant keysFetchedAt = Instant.MIN;

    public OidcProvider(OidcSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(settings.timeout()).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** The discovery document, fetched when not yet known or older than {@link #DISCOVERY_LIFETIME}. */
    public synchronized Discovery discovery() {
        if (discovery != null && clock.instant().isBefore(discoveredAt.plus(DISCOVERY_LIFETIME))) {
            return discovery;
        }
        String base = settings.issuerText();
        URI url = URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/.well-known/openid-configuration");
        JsonNode doc = getJson(url, "the discovery document");
        String issuer = doc.path("issuer").asText("");
        if (!issuer.equals(settings.issuerText())) {
            throw OidcException.provider("its discovery document names the issuer '" + clip(issuer) + "', not the configured '"
                    + settings.issuerText() + "' (set issuer to exactly what the provider names)", null);
        }
        List<String> methods = doc.path("token_endpoint_auth_methods_supported").isArray()
                ? JSON.convertValue(doc.path("token_endpoint_auth_methods_supported"), JSON.getTypeFactory().constructCollectionType(List.class, String.class))
                : List.of("client_secret_basic");
        boolean plainAllowed = "http".equals(settings.issuer().getScheme());
        discovery = new Discovery(issuer, endpoint(doc, "authorization_endpoint", plainAllowed), endpoint(doc, "token_endpoint", plainAllowed),
                endpoint(doc, "jwks_uri", plainAllowed), List.copyOf(methods), optionalEndpoint(doc, "end_session_endpoint", plainAllowed));
        discoveredAt = clock.instant();
        log.info("oidc - discovered {} (authorization {}, token {}, keys {})", issuer, discovery.authorizationEndpoint(),
                discovery.tokenEndpoint(), discovery.jwksUri());
        return discovery;
    }

    /** The keys the selector asks for; an unknown key id fetches the key set again (bounded, see the class comment). */
    @Override
    public synchronized List<JWK> get(JWKSelector selector, SecurityContext context) {
        if (keys != null) {
            List<JWK> found = selector.select(keys);
            if (!found.isEmpty() || clock.instant().isBefore(keysFetchedAt.plus(KEY_REFETCH_INTERVAL))) {
                return found;
            }
        }
        JsonNode doc = getJson(discovery().jwksUri(), "the signing keys (jwks_uri)");
        try {
            keys = JWKSet.parse(doc.toString());
        } catch (ParseException e) {
            throw OidcException.provider("its signing keys (jwks_uri) are not a JWK set (" + e.getMessage() + ")", e);
        }
        keysFetchedAt = clock.instant();
        log.info("oidc - fetched {} signing key(s) of {}", keys.getKeys().size(), settings.issuerText());
        return selector.select(keys);
    }

    /** Exchanges an authorization code (with its PKCE verifier) for the token response's {@code id_token}. */
    public String exchange(String code, String verifier) {
        Discovery d = discovery();
        boolean post = !d.authMethods().contains("client_secret_basic") && d.authMethods().contains("client_secret_post");
        Map<String, String> form = new java.util.LinkedHashMap<>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", settings.redirectUri());
        form.put("code_verifier", verifier);
        if (post || settings.clientSecret().isEmpty()) {
            form.put("client_id", settings.clientId());
        }
        if (post && !settings.clientSecret().isEmpty()) {
            form.put("client_secret", settings.clientSecret());
        }
        HttpRequest.Builder req = HttpRequest.newBuilder(d.tokenEndpoint()).timeout(settings.timeout())
                .header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(form(form)));
        if (!post && !settings.clientSecret().isEmpty()) {
            String pair = enc(settings.clientId()) + ":" + enc(settings.clientSecret());
            req.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<InputStream> res = send(req.build(), "the token endpoint");
        JsonNode body = read(res, "the token endpoint");
        if (res.statusCode() != 200) {
            String error = body.path("error").asText("HTTP " + res.statusCode());
            if ("invalid_grant".equals(error)) {
                throw new OidcException(400, "the provider refused the sign-in code (invalid_grant: used before, expired, or not issued "
                        + "for this sign-in); start the sign-in again");
            }
            throw OidcException.provider("its token endpoint answered " + res.statusCode() + " (" + clip(error) + ")", null);
        }
        String idToken = body.path("id_token").asText("");
        if (idToken.isEmpty()) {
            throw OidcException.provider("its token endpoint answered without an id_token (is the scope 'openid' requested?)", null);
        }
        return idToken;
    }

    private JsonNode getJson(URI url, String what) {
        HttpRequest req = HttpRequest.newBuilder(url).timeout(settings.timeout()).header("Accept", "application/json").GET().build();
        HttpResponse<InputStream> res = send(req, what);
        JsonNode body = read(res, what);
        if (res.statusCode() != 200) {
            throw OidcException.provider(what + " at " + url + " answered HTTP " + res.statusCode(), null);
        }
        return body;
    }

    private HttpResponse<InputStream> send(HttpRequest req, String what) {
        long start = System.nanoTime();
        try {
            return http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw OidcException.provider(what + " at " + req.uri() + " could not be reached after "
                    + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms (" + e.getClass().getSimpleName() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw OidcException.provider(what + " was interrupted", e);
        }
    }

    private static JsonNode read(HttpResponse<InputStream> res, String what) {
        try (InputStream in = res.body()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw OidcException.provider(what + " answered more than " + MAX_BODY + " bytes", null);
            }
            if (bytes.length == 0) {
                return JSON.createObjectNode();
            }
            return JSON.readTree(bytes);
        } catch (IOException e) {
            throw OidcException.provider(what + " answered something that is not JSON (HTTP " + res.statusCode() + ")", e);
        }
    }

    /** An endpoint the document may leave out: null when absent or unusable (said once in the log). */
    private static URI optionalEndpoint(JsonNode doc, String name, boolean plainAllowed) {
        if (doc.path(name).asText("").isBlank()) {
            return null;
        }
        try {
            return endpoint(doc, name, plainAllowed);
        } catch (OidcException e) {
            log.warn("oidc - the provider's {} is not used: {}", name, e.getMessage());
            return null;
        }
    }

    /** An endpoint of the discovery document: https, or plain http only when the issuer itself is (on loopback, for tests). */
    private static URI endpoint(JsonNode doc, String name, boolean plainAllowed) {
        String value = doc.path(name).asText("");
        try {
            URI uri = new URI(value);
            if (("https".equals(uri.getScheme()) || plainAllowed && "http".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getRawUserInfo() == null) {
                return uri;
            }
        } catch (java.net.URISyntaxException e) {
            // answered below
        }
        throw OidcException.provider("its discovery document has no usable " + name + " ('" + clip(value) + "'; an https URL is needed)", null);
    }

    private static String form(Map<String, String> values) {
        return values.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue())).collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
