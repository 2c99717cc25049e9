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
}
