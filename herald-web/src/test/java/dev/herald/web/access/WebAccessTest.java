package dev.herald.web.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The access decision as a pure function: loopback rule, session tokens, the same-origin rule for writes. */
class WebAccessTest {
    private static final String KEY = "sk-web-access-test";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));

    private static WebAccess.Request read(String remote, String host, String cookie) {
        return new WebAccess.Request(remote, host, null, null, cookie, null, null, false, "http");
    }

    private static WebAccess.Request write(String origin, String fetchSite, String csrf, String cookie) {
        return new WebAccess.Request("127.0.0.1", "127.0.0.1:8642", origin, fetchSite, cookie, csrf, null, true, "http");
    }

    @Test
    void noKey_nonLoopbackClient_refused403() {
        WebAccess access = new WebAccess(null, clock);
        assertThat(access.check(read("192.0.2.7", "203.0.113.5:8642", null)).status()).isEqualTo(403);
        assertThat(access.checkPublic(read("192.0.2.7", "203.0.113.5:8642", null)).status()).isEqualTo(403);
        assertThat(access.check(read("127.0.0.1", "127.0.0.1:8642", null)).allowed()).isTrue();
        assertThat(access.check(read("::1", "[::1]:8642", null)).allowed()).isTrue();
        assertThat(access.check(read("0:0:0:0:0:0:0:1", "localhost:8642", null)).allowed()).isTrue();
    }

    @Test
    void noKey_loopbackClientWithForeignHostHeader_refusedAsDnsRebinding() {
        WebAccess.Verdict v = new WebAccess(null, clock).check(read("127.0.0.1", "evil.example:8642", null));
        assertThat(v.status()).isEqualTo(403);
        assertThat(v.message()).contains("Host header");
    }

    @Test
    void key_withoutSession_refused401_withIssuedToken_allowed_fromAnyAddress() {
        WebAccess access = new WebAccess(KEY, clock);
        assertThat(access.check(read("192.0.2.7", "herald.example", null)).status()).isEqualTo(401);
        String token = access.issue();
        assertThat(access.check(read("192.0.2.7", "herald.example", token)).allowed()).isTrue();
        assertThat(token).doesNotContain(KEY);
    }

    @Test
    void key_tamperedOrExpiredOrOtherKeysToken_refused() {
        WebAccess access = new WebAccess(KEY, clock);
        String token = access.issue();
        String tampered = "9" + token.substring(1);
        assertThat(access.check(read("127.0.0.1", "x", tampered)).status()).isEqualTo(401);
        assertThat(new WebAccess("another-key", clock).check(read("127.0.0.1", "x", token)).status()).isEqualTo(401);
        clock.advance(WebAccess.SESSION_LIFETIME.plus(Duration.ofSeconds(1)));
        assertThat(access.check(read("127.0.0.1", "x", token)).status()).isEqualTo(401);
    }

    @Test
    void key_bearerHeader_allowedForScrapers() {
        WebAccess access = new WebAccess(KEY, clock);
        var r = new WebAccess.Request("192.0.2.7", "h", null, null, null, null, KEY, false, "http");
        assertThat(access.check(r).allowed()).isTrue();
        var wrong = new WebAccess.Request("192.0.2.7", "h", null, null, null, null, "nope", false, "http");
        assertThat(access.check(wrong).status()).isEqualTo(401);
    }

    @Test
    void write_withoutCsrfHeader_crossSiteFetch_orForeignOrigin_refused403() {
        WebAccess access = new WebAccess(null, clock);
        assertThat(access.check(write(null, null, null, null)).status()).isEqualTo(403);
        assertThat(access.check(write(null, "cross-site", "1", null)).status()).isEqualTo(403);
        assertThat(access.check(write("http://evil.example", null, "1", null)).status()).isEqualTo(403);
        assertThat(access.check(write("http://127.0.0.1:8642", "same-origin", "1", null)).allowed()).isTrue();
        assertThat(access.check(write(null, null, "1", null)).allowed()).isTrue();
    }

    @Test
    void cookie_isHttpOnlyStrictSessionCookie_secureOnlyOverTls() {
        assertThat(WebAccess.cookie("t", false)).isEqualTo("herald_session=t; Path=/; HttpOnly; SameSite=Strict");
        assertThat(WebAccess.cookie("t", true)).endsWith("; Secure").doesNotContain("Max-Age").doesNotContain("Expires");
    }

    private static WebAccess.Request api(String remote, String host, String origin, String fetchSite, String bearer, String xff,
            String forwarded) {
        return new WebAccess.Request(remote, host, origin, fetchSite, null, null, bearer, true, "http", xff, forwarded,
                "POST /v1/chat/completions");
    }

    @Test
    void noKey_requestsThroughAProxy_refused403_pagesAndApiAlike() {
        WebAccess access = new WebAccess(null, clock);
        WebAccess.Request viaProxy = api("127.0.0.1", "127.0.0.1:8642", null, null, null, "203.0.113.9", null);
        assertThat(access.checkApi(viaProxy).status()).isEqualTo(403);
        assertThat(access.checkApi(viaProxy).message()).contains("platforms.api_server.key");
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", null, null, null, null, "for=203.0.113.9")).status()).isEqualTo(403);
        var page = new WebAccess.Request("127.0.0.1", "127.0.0.1:8642", null, null, null, null, null, false, "http", "203.0.113.9", null, "GET /");
        assertThat(access.checkPublic(page).status()).isEqualTo(403);
    }

    @Test
    void noKey_api_crossSiteBrowserRequests_refused_localProgramsServed() {
        WebAccess access = new WebAccess(null, clock);
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", "http://evil.example", null, null, null, null)).status()).isEqualTo(403);
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", null, "cross-site", null, null, null)).status()).isEqualTo(403);
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", null, "same-site", null, null, null)).status()).isEqualTo(403);
        assertThat(access.checkApi(api("127.0.0.1", "evil.example:8642", null, null, null, null, null)).status()).isEqualTo(403);
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", null, null, null, null, null)).allowed()).isTrue();
        assertThat(access.checkApi(api("127.0.0.1", "127.0.0.1:8642", null, "none", null, null, null)).allowed()).isTrue();
        assertThat(access.checkApi(api("::1", "[::1]:8642", "http://[::1]:8642", "same-origin", null, null, null)).allowed()).isTrue();
    }

    @Test
    void key_behindALocalProxy_eachForwardedClientHasItsOwnWrongKeyBudget_andSpoofedEarlierHopsDoNotMatter() {
        WebAccess access = new WebAccess(KEY, clock);
        for (int i = 0; i < AuthThrottle.BURST; i++) {
            assertThat(access.checkApi(api("127.0.0.1", "herald.example", null, null, "wrong", "198.51.100.77, 203.0.113.9", null)).status())
                    .isEqualTo(401);
        }
        assertThat(access.checkApi(api("127.0.0.1", "herald.example", null, null, KEY, "198.51.100.1, 203.0.113.9", null)).status())
                .as("the last hop is the client, whatever it claims before").isEqualTo(429);
        assertThat(access.checkApi(api("127.0.0.1", "herald.example", null, null, KEY, null, "for=\"[2001:db8::7]:4711\"")).allowed())
                .isTrue();
        assertThat(access.checkApi(api("192.0.2.50", "herald.example", null, null, KEY, "203.0.113.9", null)).allowed())
                .as("proxy headers count only from a proxy on this machine").isTrue();
    }

    @Test
    void revokedToken_refused_othersStillValid() {
        WebAccess access = new WebAccess(KEY, clock);
        String a = access.issue();
        String b = access.issue();
        access.revoke(a);
        assertThat(access.check(read("127.0.0.1", "x", a)).status()).isEqualTo(401);
        assertThat(access.check(read("127.0.0.1", "x", b)).allowed()).isTrue();
    }
}
