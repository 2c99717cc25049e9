package dev.herald.web.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider's discovery document and keys, served by a real HTTP server on loopback. */
class OidcProviderTest {
    private HttpServer server;
    private String issuer;
    private final AtomicReference<String> discoveredIssuer = new AtomicReference<>();
    private final AtomicReference<JWKSet> served = new AtomicReference<>();
    private final AtomicInteger keyFetches = new AtomicInteger();
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-06T12:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        issuer = "http://127.0.0.1:" + server.getAddress().getPort() + "/realm";
        discoveredIssuer.set(issuer);
        server.createContext("/realm/.well-known/openid-configuration", ex -> {
            String doc = "{\"issuer\":\"" + discoveredIssuer.get() + "\",\"authorization_endpoint\":\"" + issuer + "/auth\","
                    + "\"token_endpoint\":\"" + issuer + "/token\",\"jwks_uri\":\"" + issuer + "/keys\"}";
            byte[] body = doc.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.createContext("/realm/keys", ex -> {
            keyFetches.incrementAndGet();
            byte[] body = served.get().toString().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private OidcProvider provider() {
        return new OidcProvider(new OidcSettings(URI.create(issuer), "herald", "s", null, URI.create("http://127.0.0.1:1"), null, null, null,
                null, null, Duration.ofSeconds(5)), clock);
    }

    private String token(RSAKey key) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), new JWTClaimsSet.Builder()
                .issuer(issuer).subject("ann").audience("herald").issueTime(Date.from(now.get())).expirationTime(Date.from(now.get().plusSeconds(300)))
                .claim("nonce", "n").build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void discoveryNamingAnotherIssuer_isRefusedNamingBoth() {
        discoveredIssuer.set("https://elsewhere.example.com");

        assertThatThrownBy(() -> provider().discovery()).isInstanceOf(OidcException.class)
                .hasMessageContaining("names the issuer 'https://elsewhere.example.com', not the configured '" + issuer + "'");
    }

    @Test
    void rotatedKey_isFetchedOnItsUnknownKeyId_butMadeUpKeyIdsFetchAtMostOnceEvery30Seconds() throws Exception {
        RSAKey k1 = new RSAKeyGenerator(2048).keyID("k1").generate();
        RSAKey k2 = new RSAKeyGenerator(2048).keyID("k2").generate();
        served.set(new JWKSet(k1.toPublicJWK()));
        OidcProvider provider = provider();
        IdTokenVerifier verifier = new IdTokenVerifier(issuer, "herald", "groups", provider, clock);

        assertThat(verifier.verify(token(k1), "n").subject()).isEqualTo("ann");
        served.set(new JWKSet(List.of(k1.toPublicJWK(), k2.toPublicJWK())));
        now.set(now.get().plusSeconds(40));
        assertThat(verifier.verify(token(k2), "n").subject()).isEqualTo("ann");
        assertThat(keyFetches.get()).isEqualTo(2);

        RSAKey unknown = new RSAKeyGenerator(2048).keyID("made-up").generate();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> verifier.verify(token(unknown), "n")).isInstanceOf(OidcException.class)
                    .hasMessageContaining("has no valid signature");
        }
        assertThat(keyFetches.get()).as("five tokens with an unknown key id within 30 s").isEqualTo(2);
        now.set(now.get().plusSeconds(31));
        assertThatThrownBy(() -> verifier.verify(token(unknown), "n")).isInstanceOf(OidcException.class);
        assertThat(keyFetches.get()).isEqualTo(3);
    }
}
