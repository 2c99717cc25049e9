package dev.herald.web.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.testkit.fuzz.Fuzzer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Webhook signature headers and bodies from outside: whatever arrives (one fuzzed JSON record holds the headers
 * and the body), the check answers without throwing, and nothing passes but the signed request (its signature and body intact).
 */
@Tag("fuzz")
class SignatureFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GITHUB_SECRET = "gh-fuzz-secret";
    private static final String GITLAB_TOKEN = "gl-token-xyz";
    private static final String STANDARD_SECRET = "whsec_" + Base64.getEncoder().encodeToString("standard-fuzz-key-123".getBytes());
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final String BODY = "{\"a\":1}";

    @Test
    void anyHeadersAndBody_neverThrow_andOnlyTheSignedRequestPasses() throws Exception {
        String github = "sha256=" + HexFormat.of().formatHex(SignatureCheck.hmac(GITHUB_SECRET, BODY.getBytes(StandardCharsets.UTF_8)));
        String standard = "v1," + Base64.getEncoder().encodeToString(SignatureCheck.hmac(SignatureCheck.standardKey(STANDARD_SECRET),
                ("msg_1." + NOW.getEpochSecond() + "." + BODY).getBytes(StandardCharsets.UTF_8)));
        String signed = JSON.createObjectNode().put("body", BODY).put(SignatureCheck.GITHUB_HEADER, github)
                .put(SignatureCheck.GITLAB_HEADER, GITLAB_TOKEN).put(SignatureCheck.STANDARD_ID, "msg_1")
                .put(SignatureCheck.STANDARD_TIMESTAMP, Long.toString(NOW.getEpochSecond())).put(SignatureCheck.STANDARD_SIGNATURE, standard)
                .toString();
        java.util.Map<String, String> exact = JSON.convertValue(JSON.readTree(signed), new com.fasterxml.jackson.core.type.TypeReference<>() { });
        assertThat(SignatureCheck.verify(SignatureStyle.GITHUB, GITHUB_SECRET, exact::get, BODY.getBytes(StandardCharsets.UTF_8), NOW).passed()).isTrue();
        assertThat(SignatureCheck.verify(SignatureStyle.STANDARD, STANDARD_SECRET, exact::get, BODY.getBytes(StandardCharsets.UTF_8), NOW).passed()).isTrue();
        Fuzzer.of("webhook signature", List.of(signed), 20_000).run(input -> {
            JsonNode request = JSON.readTree(input);
            if (request == null) {
                return;
            }
            byte[] body = request.path("body").asText("").getBytes(StandardCharsets.UTF_8);
            java.util.function.Function<String, String> headers = name -> request.path(name).isTextual() ? request.path(name).asText() : null;
            boolean sameBody = BODY.equals(request.path("body").asText(null));
            String gh = headers.apply(SignatureCheck.GITHUB_HEADER);
            if (SignatureCheck.verify(SignatureStyle.GITHUB, GITHUB_SECRET, headers::apply, body, NOW).passed()) {
                assertThat(sameBody && gh != null && gh.strip().equalsIgnoreCase(github)).as("github passed a forged or tampered request").isTrue();
            }
            if (SignatureCheck.verify(SignatureStyle.GITLAB, GITLAB_TOKEN, headers::apply, body, NOW).passed()) {
                assertThat(headers.apply(SignatureCheck.GITLAB_HEADER).strip()).as("gitlab passed a wrong token").isEqualTo(GITLAB_TOKEN);
            }
            String sig = headers.apply(SignatureCheck.STANDARD_SIGNATURE);
            if (SignatureCheck.verify(SignatureStyle.STANDARD, STANDARD_SECRET, headers::apply, body, NOW).passed()) {
                assertThat(sameBody && sig != null && sig.contains(standard.substring(3)) && "msg_1".equals(stripped(headers.apply(SignatureCheck.STANDARD_ID)))
                        && sameTime(headers.apply(SignatureCheck.STANDARD_TIMESTAMP)))
                        .as("standard passed a forged, tampered or re-timed request").isTrue();
            }
        }, t -> t instanceof JacksonException);
    }

    /** The signed time, however it is spelled ("0" padding is the same second). */
    private static boolean sameTime(String header) {
        try {
            return header != null && Long.parseLong(header.strip()) == NOW.getEpochSecond();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** A header value as an HTTP server hands it over: surrounding whitespace is not part of it. */
    private static String stripped(String header) {
        return header == null ? null : header.strip();
    }
}
