package dev.herald.web.oidc;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * Checks an ID token with Nimbus JOSE+JWT: the signature with one of the provider's keys (asymmetric algorithms only,
 * never {@code none} or a MAC), then the claims: {@code iss} is the configured issuer, {@code aud} holds the client id
 * (and {@code azp} is the client when there are several audiences), {@code exp} is in the future and {@code iat} not
 * in it, both with {@link #CLOCK_SKEW} of leeway, {@code sub} is present, and {@code nonce} is the one this sign-in
 * sent. Any failure is an {@link OidcException} (400) naming the check that failed.
 */
public final class IdTokenVerifier {
    /** How far the provider's clock may be from Herald's. */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(60);
    private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512,
            JWSAlgorithm.PS256, JWSAlgorithm.PS384, JWSAlgorithm.PS512, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512,
            JWSAlgorithm.EdDSA, JWSAlgorithm.Ed25519);

    /** Who signed in, as the token says. {@code groups} is the configured groups claim (a list or a single text). */
    public record Identity(String issuer, String subject, String email, Boolean emailVerified, String preferredUsername, String name,
            List<String> groups) {
    }

    private final String issuer;
    private final String clientId;
    private final String groupsClaim;
    private final JWKSource<SecurityContext> keys;
    private final Clock clock;

    public IdTokenVerifier(String issuer, String clientId, String groupsClaim, JWKSource<SecurityContext> keys, Clock clock) {
        this.issuer = issuer;
        this.clientId = clientId;
        this.groupsClaim = groupsClaim;
        this.keys = keys;
        this.clock = clock;
    }

    /** The identity in {@code idToken} when every check passes. */
    public Identity verify(String idToken, String expectedNonce) {
        JWTClaimsSet claims;
        try {
            DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
            processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, keys));
            processor.setJWTClaimsSetVerifier((c, ctx) -> {
            });
            claims = processor.process(idToken, null);
        } catch (ParseException e) {
            throw OidcException.badToken("is not a signed JWT");
        } catch (BadJWTException e) {
            throw OidcException.badToken("was refused (" + e.getMessage() + ")");
        } catch (BadJOSEException e) {
            throw OidcException.badToken("has no valid signature from the provider's keys (" + e.getMessage() + ")");
        } catch (JOSEException e) {
            throw OidcException.badToken("could not be checked (" + e.getMessage() + ")");
        }
        checkClaims(claims, expectedNonce);
        return new Identity(claims.getIssuer(), claims.getSubject(), text(claims, "email"), bool(claims, "email_verified"),
                text(claims, "preferred_username"), text(claims, "name"), groups(claims));
    }

    private void checkClaims(JWTClaimsSet c, String expectedNonce) {
        if (!issuer.equals(c.getIssuer())) {
            throw OidcException.badToken("was issued by '" + OidcProvider.clip(String.valueOf(c.getIssuer())) + "', not by " + issuer);
        }
        List<String> aud = c.getAudience();
        if (aud == null || !aud.contains(clientId)) {
            throw OidcException.badToken("is meant for " + aud + ", not for this client (" + clientId + ")");
        }
        String azp = text(c, "azp");
        if (aud.size() > 1 && !clientId.equals(azp) || azp != null && !clientId.equals(azp)) {
            throw OidcException.badToken("was handed to another client (azp '" + OidcProvider.clip(String.valueOf(azp)) + "')");
        }
        Instant now = clock.instant();
        Date exp = c.getExpirationTime();
        if (exp == null || !now.isBefore(exp.toInstant().plus(CLOCK_SKEW))) {
            throw OidcException.badToken(exp == null ? "has no expiry" : "expired at " + exp.toInstant() + " (now " + now + ")");
        }
        Date iat = c.getIssueTime();
        if (iat == null || iat.toInstant().isAfter(now.plus(CLOCK_SKEW))) {
            throw OidcException.badToken(iat == null ? "has no issue time" : "was issued in the future (" + iat.toInstant() + ", now " + now
                    + "); check the clocks");
        }
        if (c.getSubject() == null || c.getSubject().isBlank() || c.getSubject().length() > 255) {
            throw OidcException.badToken("has no usable subject (sub)");
        }
        String nonce = text(c, "nonce");
        if (expectedNonce == null || !java.security.MessageDigest.isEqual(expectedNonce.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                (nonce == null ? "" : nonce).getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            throw OidcException.badToken("carries " + (nonce == null ? "no nonce" : "another sign-in's nonce") + " (a replayed token?)");
        }
    }

    private List<String> groups(JWTClaimsSet c) {
        Object v = c.getClaim(groupsClaim);
        List<String> out = new ArrayList<>();
        if (v instanceof String s) {
            out.add(s);
        } else if (v instanceof List<?> list) {
            list.stream().filter(String.class::isInstance).map(String.class::cast).forEach(out::add);
        }
        return List.copyOf(out);
    }

    private static String text(JWTClaimsSet c, String name) {
        return c.getClaim(name) instanceof String s ? s : null;
    }

    private static Boolean bool(JWTClaimsSet c, String name) {
        Object v = c.getClaim(name);
        return v instanceof Boolean b ? b : v instanceof String s ? Boolean.valueOf(s) : null;
    }
}
