package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.web.fuzz.Fuzz;
import java.time.Clock;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Outside input to the access decision (headers, addresses, cookies): whatever arrives, the decision is
 * one of its statuses and nothing throws; a forged cookie or key never passes. Seeded; see {@link Fuzz}.
 */
class AccessInputFuzzTest {
    private static final Set<Integer> STATUSES = Set.of(200, 401, 403, 429);

    @Test
    void forwardedHeadersAndAddresses_neverThrow_andWhatTheyReturnIsALiteralOrNull() {
        Random r = Fuzz.random();
        for (int i = 0; i < Fuzz.ITERATIONS; i++) {
            String header = i % 3 == 0 ? Fuzz.mutate(r, "for=\"[2001:db8::7]:4711\";proto=https, for=192.0.2.60") : Fuzz.text(r, 80);
            String xff = ForwardedHeaders.lastXForwardedFor(header);
            String fwd = ForwardedHeaders.lastForwardedFor(header);
            for (String hop : new String[] {xff, fwd}) {
                if (hop != null) {
                    assertThat(hop).isNotBlank();
                    ClientAddress.bucket(hop);
                }
            }
            ClientAddress.isLoopback(header);
            WebAccess.isLoopbackHost(header);
        }
    }

    @Test
    void theDecision_onRandomRequests_isAlwaysAKnownStatus_andRandomCredentialsNeverPass() {
        Random r = Fuzz.random();
        WebAccess keyless = new WebAccess(null, Clock.systemUTC());
        WebAccess keyed = new WebAccess("sk-fuzz-key-0123456789", Clock.systemUTC());
        String token = keyed.issue();
        for (int i = 0; i < Fuzz.ITERATIONS; i++) {
            String cookie = r.nextBoolean() ? Fuzz.mutate(r, token) : Fuzz.header(r, 60);
            WebAccess.Request req = new WebAccess.Request(r.nextBoolean() ? "127.0.0.1" : Fuzz.text(r, 40), Fuzz.header(r, 40),
                    Fuzz.header(r, 40), Fuzz.header(r, 20), cookie, Fuzz.header(r, 5), Fuzz.header(r, 30), r.nextBoolean(),
                    "http", Fuzz.header(r, 60), Fuzz.header(r, 60), "GET /fuzz");
            for (WebAccess a : new WebAccess[] {keyless, keyed}) {
                assertThat(a.check(req).status()).isIn(STATUSES);
                assertThat(a.checkPublic(req).status()).isIn(STATUSES);
                assertThat(a.checkApi(req).status()).isIn(STATUSES);
            }
            if (!token.equals(cookie)) {
                assertThat(keyed.validToken(cookie)).as("a mutated token").isFalse();
            }
        }
    }
}
