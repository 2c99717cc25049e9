package dev.herald.web.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a webhook request against its route's secret, before anything else is done with it, and names
 * what makes it unique for de-duplication. Every comparison is constant-time ({@link MessageDigest#isEqual});
 * GitLab's plain token is hashed first so that its length does not leak either. The secret never leaves
 * this class.
 *
 * <p>De-duplication ({@link Verified#dedupeId}). A replayed request must not run a second turn even when
 * the replayer changes the unsigned delivery-id header, so the id is taken from what was verified: the
 * SHA-256 of the body for GitHub and GitLab (a redelivery carries the same body), the signed
 * {@code webhook-id} for Standard Webhooks (its retries are signed again with a new timestamp, so the body
 * hash would differ). Unverified routes ({@code none}) fall back to the delivery-id header.
 */
final class SignatureCheck {
    static final String GITHUB_HEADER = "X-Hub-Signature-256";
    static final String GITLAB_HEADER = "X-Gitlab-Token";
    static final String STANDARD_ID = "webhook-id";
    static final String STANDARD_TIMESTAMP = "webhook-timestamp";
    static final String STANDARD_SIGNATURE = "webhook-signature";
    /** How far a Standard Webhooks timestamp may be from the server's clock, either way. */
    static final Duration TIMESTAMP_TOLERANCE = Duration.ofMinutes(5);
    private static final Pattern STANDARD_ID_CHARS = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    /**
     * The outcome: passed (problem null) or refused with a short reason for the log (never a secret or a
     * signature); when passed, the id that makes the request unique, or null when nothing does.
     */
    record Verified(String problem, String dedupeId) {
        static Verified refused(String problem) {
            return new Verified(problem, null);
        }

        boolean passed() {
            return problem == null;
        }
    }

    private SignatureCheck() {
    }

    /**
     * @param headers reads a request header by name (null when absent)
     * @param now     the server's time, for signed timestamps
     */
    static Verified verify(SignatureStyle style, String secret, Function<String, String> headers, byte[] body, Instant now) {
        return switch (style) {
            case NONE -> new Verified(null, null);
            case GITHUB -> bodyHashed(github(secret, headers.apply(GITHUB_HEADER), body), body);
            case GITLAB -> bodyHashed(gitlab(secret, headers.apply(GITLAB_HEADER)), body);
            case STANDARD -> standard(secret, headers, body, now);
        };
    }

    private static Verified bodyHashed(String problem, byte[] body) {
        return problem != null ? Verified.refused(problem) : new Verified(null, "sha256:" + HexFormat.of().formatHex(sha256(body)));
    }

    private static String github(String secret, String header, byte[] body) {
        if (header == null || header.isBlank()) {
            return "no " + GITHUB_HEADER + " header";
        }
        String presented = header.strip();
        if (!presented.regionMatches(true, 0, "sha256=", 0, 7)) {
            return GITHUB_HEADER + " is not of the form sha256=<hex>";
        }
        byte[] expected = ("sha256=" + HexFormat.of().formatHex(hmac(secret, body))).getBytes(StandardCharsets.US_ASCII);
        byte[] given = ("sha256=" + presented.substring(7).toLowerCase(Locale.ROOT)).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given) ? null : GITHUB_HEADER + " does not match the body";
    }

    private static String gitlab(String secret, String header) {
        if (header == null || header.isEmpty()) {
            return "no " + GITLAB_HEADER + " header";
        }
        return MessageDigest.isEqual(sha256(secret.getBytes(StandardCharsets.UTF_8)), sha256(header.getBytes(StandardCharsets.UTF_8)))
                ? null : GITLAB_HEADER + " does not match";
    }

    private static Verified standard(String secret, Function<String, String> headers, byte[] body, Instant now) {
        String id = headers.apply(STANDARD_ID);
        String timestamp = headers.apply(STANDARD_TIMESTAMP);
        String signatures = headers.apply(STANDARD_SIGNATURE);
        if (id == null || timestamp == null || signatures == null) {
            return Verified.refused("missing " + STANDARD_ID + ", " + STANDARD_TIMESTAMP + " or " + STANDARD_SIGNATURE + " header");
        }
        if (!STANDARD_ID_CHARS.matcher(id.strip()).matches()) {
            return Verified.refused(STANDARD_ID + " is not 1-128 letters, digits, '.', '_', ':' or '-'");
        }
        long sentAt;
        try {
            sentAt = Long.parseLong(timestamp.strip());
        } catch (NumberFormatException e) {
            return Verified.refused(STANDARD_TIMESTAMP + " is not a number of seconds");
        }
        long skew = Math.abs(now.getEpochSecond() - sentAt);
        if (skew > TIMESTAMP_TOLERANCE.toSeconds()) {
            return Verified.refused(STANDARD_TIMESTAMP + " is " + skew + " s away from this server's clock (the window is "
                    + TIMESTAMP_TOLERANCE.toSeconds() + " s): a replay, or a clock to fix");
        }
        byte[] signed = concat((id.strip() + "." + sentAt + ".").getBytes(StandardCharsets.UTF_8), body);
        byte[] expected = Base64.getEncoder().encode(hmac(standardKey(secret), signed));
        for (String candidate : signatures.strip().split(" ")) {
            int comma = candidate.indexOf(',');
            if (comma > 0 && candidate.substring(0, comma).equals("v1")
                    && MessageDigest.isEqual(expected, candidate.substring(comma + 1).getBytes(StandardCharsets.US_ASCII))) {
                return new Verified(null, "id:" + id.strip());
            }
        }
        return Verified.refused(STANDARD_SIGNATURE + " has no v1 signature that matches");
    }

    /** The HMAC key of a Standard Webhooks secret: base64 after an optional {@code whsec_} prefix. */
    static byte[] standardKey(String secret) {
        String b64 = secret.startsWith("whsec_") ? secret.substring(6) : secret;
        return Base64.getDecoder().decode(b64);
    }

    /** True when {@code secret} is usable as a Standard Webhooks secret (validation, without showing it). */
    static boolean isStandardSecret(String secret) {
        try {
            return standardKey(secret).length >= 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** HMAC-SHA256 of {@code body} keyed with {@code secret}, as GitHub computes it. */
    static byte[] hmac(String secret, byte[] body) {
        return hmac(secret.getBytes(StandardCharsets.UTF_8), body);
    }

    static byte[] hmac(byte[] key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable in this JVM", e);
        }
    }
}
