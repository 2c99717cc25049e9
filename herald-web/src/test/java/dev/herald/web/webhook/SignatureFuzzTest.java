package dev.herald.web.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.web.fuzz.Fuzz;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Webhook signature headers and bodies from outside: whatever arrives, the check answers (never throws) and
 * random or mutated signatures never pass. Seeded; see {@link Fuzz}.
 */
class SignatureFuzzTest {
    private static final String GITHUB_SECRET = "gh-fuzz-secret";
    private static final String STANDARD_SECRET = "whsec_" + java.util.Base64.getEncoder().encodeToString("standard-fuzz-key-123".getBytes());

    @Test
    void randomHeadersAndBodies_neverThrow_andNeverPassASignedStyle() {
        Random r = Fuzz.random();
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        String body = "{\"a\":1}";
        String goodStandard = "v1," + java.util.Base64.getEncoder().encodeToString(SignatureCheck.hmac(
                SignatureCheck.standardKey(STANDARD_SECRET), ("msg_1." + now.getEpochSecond() + "." + body).getBytes(StandardCharsets.UTF_8)));
        for (int i = 0; i < Fuzz.ITERATIONS; i++) {
            Map<String, String> headers = new HashMap<>();
            headers.put(SignatureCheck.GITHUB_HEADER, r.nextBoolean() ? Fuzz.header(r, 80) : Fuzz.mutate(r, "sha256=" + "ab".repeat(32)));
            headers.put(SignatureCheck.GITLAB_HEADER, Fuzz.header(r, 30));
            headers.put(SignatureCheck.STANDARD_ID, r.nextBoolean() ? "msg_1" : Fuzz.header(r, 30));
            headers.put(SignatureCheck.STANDARD_TIMESTAMP, r.nextBoolean() ? Long.toString(now.getEpochSecond()) : Fuzz.header(r, 25));
            headers.put(SignatureCheck.STANDARD_SIGNATURE, r.nextBoolean() ? Fuzz.mutate(r, goodStandard) : Fuzz.header(r, 120));
            byte[] sent = (r.nextBoolean() ? body : Fuzz.text(r, 200)).getBytes(StandardCharsets.UTF_8);
            SignatureCheck.Verified github = SignatureCheck.verify(SignatureStyle.GITHUB, GITHUB_SECRET, headers::get, sent, now);
            SignatureCheck.Verified gitlab = SignatureCheck.verify(SignatureStyle.GITLAB, "gl-token-xyz", headers::get, sent, now);
            SignatureCheck.Verified standard = SignatureCheck.verify(SignatureStyle.STANDARD, STANDARD_SECRET, headers::get, sent, now);
            assertThat(github.passed()).isFalse();
            assertThat(gitlab.passed()).isFalse();
            boolean exact = goodStandard.equals(headers.get(SignatureCheck.STANDARD_SIGNATURE)) && "msg_1".equals(headers.get(SignatureCheck.STANDARD_ID))
                    && Long.toString(now.getEpochSecond()).equals(headers.get(SignatureCheck.STANDARD_TIMESTAMP)) && body.equals(new String(sent, StandardCharsets.UTF_8));
            assertThat(standard.passed()).isEqualTo(exact);
            assertThat(SignatureCheck.verify(SignatureStyle.NONE, null, headers::get, sent, now).passed()).isTrue();
        }
    }
}
