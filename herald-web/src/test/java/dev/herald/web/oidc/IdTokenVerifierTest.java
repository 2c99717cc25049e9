package dev.herald.web.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The ID token checks, each broken once, with keys made by the test. */
class IdTokenVerifierTest {
    private static final String ISSUER = "https://login.example.com/realms/staff";
    private static final String CLIENT = "herald";
    private static final String NONCE = "nonce-of-this-sign-in";
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
    private static RSAKey providerKey;
    private static RSAKey otherKey;

    @BeforeAll
    static void keys() throws JOSEException {
        providerKey = new RSAKeyGenerator(2048).keyID("k1").generate();
        otherKey = new RSAKeyGenerator(2048).keyID("k1").generate();
    }

    private static IdTokenVerifier verifier() {
        return new IdTokenVerifier(ISSUER, CLIENT, "groups", new ImmutableJWKSet<>(new JWKSet(providerKey.toPublicJWK())),
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder().issuer(ISSUER).subject("ann-123").audience(CLIENT).issueTime(Date.from(NOW.minusSeconds(5)))
                .expirationTime(Date.from(NOW.plusSeconds(300))).claim("nonce", NONCE).claim("email", "ann@example.com")
                .claim("groups", List.of("staff", "herald-admins"));
    }

    private static String token(RSAKey key, UnaryOperator<JWTClaimsSet.Builder> change) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), change.apply(claims()).build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void validToken_givesTheIdentity() throws JOSEException {
        IdTokenVerifier.Identity who = verifier().verify(token(providerKey, c -> c), NONCE);

        assertThat(who.subject()).isEqualTo("ann-123");
        assertThat(who.issuer()).isEqualTo(ISSUER);
        assertThat(who.email()).isEqualTo("ann@example.com");
        assertThat(who.groups()).containsExactly("staff", "herald-admins");
    }

    @Test
    void wrongIssuer_isRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.issuer("https://evil.example.net")), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("was issued by 'https://evil.example.net', not by " + ISSUER);
    }

    @Test
    void wrongAudience_isRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.audience("another-app")), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("is meant for [another-app], not for this client (herald)");
    }

    @Test
    void severalAudiences_withAnotherAuthorizedParty_isRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.audience(List.of(CLIENT, "x")).claim("azp", "x")), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("was handed to another client");
    }

    @Test
    void expiredToken_isRefused_pastTheClockSkew() throws JOSEException {
        assertThat(verifier().verify(token(providerKey, c -> c.expirationTime(Date.from(NOW.minusSeconds(30)))), NONCE).subject())
                .isEqualTo("ann-123");
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.expirationTime(Date.from(NOW.minusSeconds(120)))), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("expired at 2026-12-06T11:58:00Z");
    }

    @Test
    void tokenIssuedInTheFuture_isRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.issueTime(Date.from(NOW.plusSeconds(600)))), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("was issued in the future");
    }

    @Test
    void signatureByAnotherKey_withTheSameKeyId_isRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(otherKey, c -> c), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("has no valid signature");
    }

    @Test
    void tamperedPayload_isRefused() throws JOSEException {
        String[] parts = token(providerKey, c -> c).split("\\.");
        String forged = token(providerKey, c -> c.subject("admin")).split("\\.")[1];

        assertThatThrownBy(() -> verifier().verify(parts[0] + "." + forged + "." + parts[2], NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("has no valid signature");
    }

    @Test
    void unsignedToken_andAMacSignedWithAGuessableSecret_areRefused() throws JOSEException {
        String plain = new PlainJWT(claims().build()).serialize();
        SignedJWT mac = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims().build());
        mac.sign(new MACSigner("a-secret-of-at-least-thirty-two-bytes!!"));

        assertThatThrownBy(() -> verifier().verify(plain, NONCE)).isInstanceOf(OidcException.class).hasMessageContaining("ID token");
        assertThatThrownBy(() -> verifier().verify(mac.serialize(), NONCE)).isInstanceOf(OidcException.class)
                .hasMessageContaining("has no valid signature");
    }

    @Test
    void wrongNonce_andMissingNonce_areRefused() throws JOSEException {
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c), "the nonce of another sign-in"))
                .isInstanceOf(OidcException.class).hasMessageContaining("another sign-in's nonce");
        assertThatThrownBy(() -> verifier().verify(token(providerKey, c -> c.claim("nonce", null)), NONCE))
                .isInstanceOf(OidcException.class).hasMessageContaining("carries no nonce");
    }

    @Test
    void garbage_isRefusedAsNotAJwt() {
        assertThatThrownBy(() -> verifier().verify("not.a.jwt", NONCE)).isInstanceOf(OidcException.class)
                .hasMessageContaining("the provider's ID token").extracting(e -> ((OidcException) e).status()).isEqualTo(400);
    }
}
