package dev.herald.platforms.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.herald.platforms.LocalJsonServer;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bearer-JWT check both webhook platforms use, against a local JWKS: a good token passes; a wrong key, audience,
 * issuer, algorithm, an expired or not-yet-valid token is refused with a reason; the clock skew is honoured; an
 * unknown key id fetches the keys again at most once per interval; no keys at all is {@code KeysUnavailable}.
 */
class JwksVerifierTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final String ISSUER = "chat@system.gserviceaccount.com";
    static RSAKey k1;
    static RSAKey k2;
    static RSAKey other;
    static volatile List<RSAKey> published;
    static volatile int status = 200;
    static final AtomicInteger fetches = new AtomicInteger();
    static LocalJsonServer server;

    @BeforeAll
    static void keys() throws Exception {
        k1 = new RSAKeyGenerator(2048).keyID("k1").generate();
        k2 = new RSAKeyGenerator(2048).keyID("k2").generate();
        other = new RSAKeyGenerator(2048).keyID("k1").generate();
        server = new LocalJsonServer(x -> {
            try (x) {
                fetches.incrementAndGet();
                ObjectNode set = LocalJsonServer.JSON.createObjectNode();
                var arr = set.putArray("keys");
                for (RSAKey k : published) {
                    arr.add(LocalJsonServer.JSON.readTree(k.toPublicJWK().toJSONString()));
                }
                arr.addObject().put("kty", "EC").put("kid", "ec1").put("crv", "P-256").put("x", "bad").put("y", "bad");
                LocalJsonServer.reply(x, status, set);
            }
        });
    }

    @AfterAll
    static void close() {
        server.close();
    }

    private JwksVerifier verifier(Duration refresh) {
        published = List.of(k1);
        status = 200;
        fetches.set(0);
        var config = JwksVerifier.Config.of("test", URI.create(server.baseUrl() + "/jwks"), false, Set.of(ISSUER), "123456789012")
                .withRefreshInterval(refresh);
        return new JwksVerifier(config, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience("123456789012").issueTime(Date.from(NOW.minusSeconds(10)))
                .expirationTime(Date.from(NOW.plusSeconds(3600)));
    }

    static String sign(JWTClaimsSet c, RSAKey key) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), c);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void aGoodToken_passes_andEachWrongPart_isRefusedWithItsReason() throws Exception {
        JwksVerifier v = verifier(Duration.ofMinutes(5));

        assertThat(v.verify(sign(claims().build(), k1)).claims().getIssuer()).isEqualTo(ISSUER);
        assertThatThrownBy(() -> v.verify(sign(claims().build(), other))).isInstanceOf(JwksVerifier.Rejected.class).hasMessageContaining("signature");
        assertThatThrownBy(() -> v.verify(sign(claims().audience("999").build(), k1))).hasMessageContaining("audience");
        assertThatThrownBy(() -> v.verify(sign(claims().issuer("https://accounts.google.com").build(), k1))).hasMessageContaining("issuer");
        assertThatThrownBy(() -> v.verify(sign(claims().expirationTime(Date.from(NOW.minusSeconds(301))).build(), k1))).hasMessageContaining("expired");
        assertThat(v.verify(sign(claims().expirationTime(Date.from(NOW.minusSeconds(200))).build(), k1))).as("within the skew").isNotNull();
        assertThatThrownBy(() -> v.verify(sign(claims().expirationTime(null).build(), k1))).hasMessageContaining("no expiry");
        assertThatThrownBy(() -> v.verify(sign(claims().notBeforeTime(Date.from(NOW.plusSeconds(400))).build(), k1))).hasMessageContaining("not valid before");
        String none = new com.nimbusds.jwt.PlainJWT(claims().build()).serialize();
        assertThatThrownBy(() -> v.verify(none)).isInstanceOf(JwksVerifier.Rejected.class);
        assertThatThrownBy(() -> v.verify("garbage")).hasMessageContaining("not a signed JWT");
        String tampered = sign(claims().build(), k1);
        String[] parts = tampered.split("\\.");
        String forgedClaims = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(claims().audience("123456789012").subject("root").build()
                .toString().getBytes());
        assertThatThrownBy(() -> v.verify(parts[0] + "." + forgedClaims + "." + parts[2])).hasMessageContaining("signature");
        assertThat(fetches.get()).isEqualTo(1);
        assertThat(JwksVerifier.bearer("bearer abc")).isEqualTo("abc");
        assertThat(JwksVerifier.bearer("Basic abc")).isNull();
    }

    @Test
    void anUnknownKeyId_fetchesTheKeysAgain_atMostOncePerInterval() throws Exception {
        JwksVerifier v = verifier(Duration.ofMinutes(5));
        v.verify(sign(claims().build(), k1));

        published = List.of(k1, k2);
        assertThat(v.verify(sign(claims().build(), k2))).as("a rotated key, fetched on first use").isNotNull();
        RSAKey k3 = new RSAKeyGenerator(2048).keyID("k3").generate();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> v.verify(sign(claims().build(), k3))).hasMessageContaining("not among");
        }
        assertThat(fetches.get()).isEqualTo(2);
    }

    @Test
    void keysThatCannotBeFetched_areKeysUnavailable_notARejection() throws Exception {
        JwksVerifier v = verifier(Duration.ofMinutes(5));
        status = 500;

        assertThatThrownBy(() -> v.verify(sign(claims().build(), k1))).isInstanceOf(JwksVerifier.KeysUnavailable.class);
        assertThatThrownBy(() -> v.verify(sign(claims().build(), k1))).as("not fetched again at once").isInstanceOf(JwksVerifier.KeysUnavailable.class);
        assertThat(fetches.get()).isEqualTo(1);
    }
}
