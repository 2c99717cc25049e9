package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.testkit.fuzz.Fuzzer;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Outside input to the access decision (addresses, Host, Origin, Sec-Fetch-Site, proxy headers, cookies, keys;
 * one fuzzed JSON record is one request): the decision is always one of its statuses and nothing throws; a
 * forged session cookie or key never passes; a proxy header parses to an address literal or to nothing.
 */
@Tag("fuzz")
class AccessInputFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Integer> STATUSES = Set.of(200, 401, 403, 429);
    private static final String KEY = "sk-fuzz-key-0123456789";

    @Test
    void anyRequest_getsAKnownStatus_nothingThrows_andForgedCredentialsNeverPass() {
        WebAccess keyless = new WebAccess(null, Clock.systemUTC());
        WebAccess keyed = new WebAccess(KEY, Clock.systemUTC());
        String token = keyed.issue();
        List<String> corpus = List.of(
                JSON.createObjectNode().put("remote", "127.0.0.1").put("host", "127.0.0.1:8642").put("origin", "http://127.0.0.1:8642")
                        .put("site", "same-origin").put("cookie", token).put("csrf", "1").put("bearer", KEY).put("write", true)
                        .put("xff", "203.0.113.9, 127.0.0.1").put("forwarded", "for=\"[2001:db8::7]:4711\";proto=https, for=198.51.100.60")
                        .toString(),
                JSON.createObjectNode().put("remote", "::1").put("host", "[::1]:8642").put("origin", "null").put("site", "cross-site")
                        .put("cookie", "").put("bearer", "Bearer x").put("write", false).toString());
        Fuzzer.of("web access", corpus, 20_000).run(input -> {
            JsonNode r = JSON.readTree(input);
            if (r == null) {
                return;
            }
            WebAccess.Request req = new WebAccess.Request(text(r, "remote"), text(r, "host"), text(r, "origin"), text(r, "site"),
                    text(r, "cookie"), text(r, "csrf"), text(r, "bearer"), r.path("write").asBoolean(), "http", text(r, "xff"),
                    text(r, "forwarded"), "GET /fuzz");
            for (WebAccess access : new WebAccess[] {keyless, keyed}) {
                assertThat(access.check(req).status()).isIn(STATUSES);
                assertThat(access.checkPublic(req).status()).isIn(STATUSES);
                assertThat(access.checkApi(req).status()).isIn(STATUSES);
            }
            String cookie = text(r, "cookie");
            if (cookie != null && !cookie.equals(token)) {
                assertThat(keyed.validToken(cookie)).as("a forged session cookie").isFalse();
            }
            for (String header : new String[] {text(r, "xff"), text(r, "forwarded"), text(r, "remote"), text(r, "host")}) {
                if (header == null) {
                    continue;
                }
                for (String hop : new String[] {ForwardedHeaders.lastXForwardedFor(header), ForwardedHeaders.lastForwardedFor(header)}) {
                    if (hop != null) {
                        assertThat(hop).isNotBlank();
                        ClientAddress.bucket(hop);
                    }
                }
                ClientAddress.isLoopback(header);
                WebAccess.isLoopbackHost(header);
            }
        }, t -> t instanceof JacksonException);
    }

    private static String text(JsonNode r, String field) {
        return r.path(field).isTextual() ? r.path(field).asText() : null;
    }
}
