package dev.herald.platforms.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the bearer JWT a platform's service puts on its calls to Herald (Bot Framework for Teams, Google Chat): the
 * signature with RS256 against the platform's published keys (a JWKS, found directly or through OpenID metadata's
 * {@code jwks_uri}), the issuer, the audience, the expiry and {@code nbf} with a small clock skew. Nimbus JOSE+JWT does
 * the parsing and the RSA check; this class adds the key cache the platforms' documents ask for.
 *
 * <p>Keys are fetched on first use and kept; a token whose {@code kid} is not among them makes the verifier fetch the
 * keys again (a rotation), at most once per {@code refreshInterval} so that tokens with made-up key ids cannot make
 * Herald call the key endpoint for every request (a failed first fetch is not tried again for 10 seconds either); the
 * keys are also fetched again once older than {@code maxAge}.
 * Only RS256 is taken ({@code none}, HMAC and other algorithms are refused before any key is looked at).
 *
 * <p>{@link Rejected} carries a reason for the log that names no token and no key material; {@link KeysUnavailable}
 * means the keys could not be had at all (the caller answers 503 so that the platform tries again).
 */
public final class JwksVerifier {
    private static final Logger log = LoggerFactory.getLogger(JwksVerifier.class);
    private static final int MAX_KEYS_BYTES = 256 * 1024;

    /**
     * What to check.
     *
     * @param subject         the platform, for messages ({@code teams})
     * @param keysUrl         where the keys are: a JWKS, or OpenID metadata when {@code openIdMetadata}
     * @param openIdMetadata  {@code keysUrl} is OpenID metadata whose {@code jwks_uri} names the JWKS
     * @param issuers         the issuers taken (one of them)
     * @param audience        the audience the token must name
     * @param clockSkew       how far expiry and {@code nbf} may be off
     * @param refreshInterval the least time between two fetches of the keys for an unknown key id
     * @param maxAge          keys older than this are fetched again before use
     * @param timeout         one fetch
     */
    public record Config(String subject, URI keysUrl, boolean openIdMetadata, Set<String> issuers, String audience, Duration clockSkew,
            Duration refreshInterval, Duration maxAge, Duration timeout) {
        public Config {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(keysUrl, "keysUrl");
            issuers = Set.copyOf(issuers);
            Objects.requireNonNull(audience, "audience");
        }

        /** Five minutes of skew, refresh at most every 5 minutes on an unknown key, keys kept a day, 10 s per fetch. */
        public static Config of(String subject, URI keysUrl, boolean openIdMetadata, Set<String> issuers, String audience) {
            return new Config(subject, keysUrl, openIdMetadata, issuers, audience, Duration.ofMinutes(5), Duration.ofMinutes(5),
                    Duration.ofHours(24), Duration.ofSeconds(10));
        }

        public Config withRefreshInterval(Duration d) {
            return new Config(subject, keysUrl, openIdMetadata, issuers, audience, clockSkew, d, maxAge, timeout);
        }
    }

    /** A token that is not the platform's: the reason, for the log (no token text in it). */
    public static final class Rejected extends Exception {
        public Rejected(String reason) {
            super(reason, null, false, false);
        }
    }

    /** The keys could not be fetched and none are known: nothing can be verified now. */
    public static final class KeysUnavailable extends Exception {
        public KeysUnavailable(String reason) {
            super(reason, null, false, false);
        }
    }

    /** A verified token: its claims, and the {@code endorsements} the key that signed it carries in the JWKS (Bot Framework's). */
    public record Verified(JWTClaimsSet claims, List<String> endorsements) {
    }

    private record Key(RSAKey key, List<String> endorsements) {
    }

    private final Config config;
    private final Clock clock;
    private final HttpClient client;
    private Map<String, Key> keys = Map.of();
    private Instant fetchedAt = Instant.EPOCH;
    private Instant lastTry = Instant.EPOCH;
    private Instant lastFailure = Instant.EPOCH;
    private int fetches;

    public JwksVerifier(Config config, Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(config.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** How often the keys were fetched (for tests and the log). */
    public synchronized int fetches() {
        return fetches;
    }

    /**
     * The claims of {@code token} (the compact JWT, without {@code Bearer}) once every check passed.
     *
     * @throws Rejected        when it is not a valid token of the platform for this audience
     * @throws KeysUnavailable when no keys are known and none could be fetched
     */
    public Verified verify(String token) throws Rejected, KeysUnavailable {
        if (token == null || token.isBlank() || token.length() > 16_384) {
            throw new Rejected("no token");
        }
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token.strip());
        } catch (java.text.ParseException | RuntimeException e) {
            throw new Rejected("not a signed JWT");
        }
        if (!JWSAlgorithm.RS256.equals(jwt.getHeader().getAlgorithm())) {
            throw new Rejected("algorithm " + jwt.getHeader().getAlgorithm() + " (only RS256 is taken)");
        }
        String kid = jwt.getHeader().getKeyID();
        if (kid == null || kid.isBlank() || kid.length() > 256) {
            throw new Rejected("no key id");
        }
        Key key = key(kid);
        try {
            if (!jwt.verify(new RSASSAVerifier(key.key()))) {
                throw new Rejected("signature does not verify with key " + clip(kid));
            }
        } catch (JOSEException e) {
            throw new Rejected("signature cannot be checked with key " + clip(kid));
        }
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (java.text.ParseException e) {
            throw new Rejected("claims are not readable");
        }
        check(claims);
        return new Verified(claims, key.endorsements());
    }

    private void check(JWTClaimsSet claims) throws Rejected {
        if (claims.getIssuer() == null || !config.issuers().contains(claims.getIssuer())) {
            throw new Rejected("issuer " + (claims.getIssuer() == null ? "none" : "\"" + clip(claims.getIssuer()) + "\"") + " is not "
                    + config.issuers());
        }
        if (claims.getAudience() == null || !claims.getAudience().contains(config.audience())) {
            throw new Rejected("audience " + (claims.getAudience() == null ? "none" : clip(String.valueOf(claims.getAudience())))
                    + " does not name the configured one");
        }
        Instant now = clock.instant();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            throw new Rejected("no expiry");
        }
        if (exp.toInstant().plus(config.clockSkew()).isBefore(now)) {
            throw new Rejected("expired at " + exp.toInstant());
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && nbf.toInstant().minus(config.clockSkew()).isAfter(now)) {
            throw new Rejected("not valid before " + nbf.toInstant());
        }
    }

    private synchronized Key key(String kid) throws Rejected, KeysUnavailable {
        Instant now = clock.instant();
        boolean stale = !fetchedAt.plus(config.maxAge()).isAfter(now);
        if (keys.containsKey(kid) && !stale) {
            return keys.get(kid);
        }
        if (keys.isEmpty() && lastFailure.plusSeconds(10).isAfter(now)) {
            throw new KeysUnavailable("the signing keys could not be fetched a moment ago");
        }
        boolean load = keys.isEmpty() || stale;
        boolean mayFetch = load || !lastTry.plus(config.refreshInterval()).isAfter(now);
        if (mayFetch) {
            if (!load) {
                lastTry = now; // only a refresh for an unknown key id counts against the interval
            }
            try {
                keys = fetch();
                fetchedAt = now;
                log.info("{} - signing keys fetched from {}: {}", config.subject(), config.keysUrl(), keys.keySet());
            } catch (IOException e) {
                lastFailure = now;
                log.warn("{} - signing keys could not be fetched from {}: {}{}", config.subject(), config.keysUrl(), e.getMessage(),
                        keys.isEmpty() ? "" : " (keeping the " + keys.size() + " known)");
                if (keys.isEmpty()) {
                    throw new KeysUnavailable("the signing keys could not be fetched (" + e.getMessage() + ")");
                }
            }
        }
        Key k = keys.get(kid);
        if (k == null) {
            throw new Rejected("key " + clip(kid) + " is not among the platform's signing keys" + (mayFetch ? "" : " (fetched again lately)"));
        }
        return k;
    }

    private Map<String, Key> fetch() throws IOException {
        fetches++;
        URI jwks = config.keysUrl();
        if (config.openIdMetadata()) {
            JsonNode meta = getJson(jwks);
            String uri = meta.path("jwks_uri").asText("");
            if (!BaseUrl.valid(uri, "https", "http")) {
                throw new IOException("the OpenID metadata names no usable jwks_uri");
            }
            jwks = URI.create(uri);
            if (!"https".equalsIgnoreCase(jwks.getScheme()) && !jwks.getScheme().equalsIgnoreCase(config.keysUrl().getScheme())) {
                throw new IOException("the OpenID metadata's jwks_uri is not https");
            }
        }
        JsonNode set = getJson(jwks);
        Map<String, Key> out = new HashMap<>();
        for (JsonNode k : set.path("keys")) {
            try {
                JWK jwk = JWK.parse(k.toString());
                if (jwk instanceof RSAKey rsa && jwk.getKeyID() != null && !jwk.isPrivate()) {
                    List<String> endorsements = new ArrayList<>();
                    k.path("endorsements").forEach(e -> endorsements.add(e.asText("")));
                    out.put(jwk.getKeyID(), new Key(rsa, List.copyOf(endorsements)));
                }
            } catch (java.text.ParseException | RuntimeException e) {
                // a key Herald cannot use (another type, malformed): left out
            }
        }
        if (out.isEmpty()) {
            throw new IOException("the key set holds no RSA key with an id");
        }
        return Map.copyOf(out);
    }

    private JsonNode getJson(URI uri) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(config.timeout()).GET().header("Accept", "application/json").build();
        HttpResponse<InputStream> r;
        try {
            r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (IOException | RuntimeException e) {
            throw new IOException(e.getClass().getSimpleName());
        }
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                throw new IOException("HTTP " + r.statusCode());
            }
            byte[] bytes = in.readNBytes(MAX_KEYS_BYTES + 1);
            if (bytes.length > MAX_KEYS_BYTES) {
                throw new IOException("the answer is over " + MAX_KEYS_BYTES + " bytes");
            }
            JsonNode n = JsonHttp.JSON.readTree(bytes);
            if (n == null || !n.isObject()) {
                throw new IOException("the answer is not a JSON object");
            }
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException("the answer is not JSON");
        }
    }

    /** The token of an {@code Authorization: Bearer <token>} header, or null. */
    public static String bearer(String header) {
        if (header == null || header.length() < 8 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String t = header.substring(7).strip();
        return t.isEmpty() ? null : t;
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }

    public void close() {
        client.close();
    }
}
