package dev.herald.web.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a webhook request against its route's secret, before anything else is done with it. Every
 * comparison is constant-time ({@link MessageDigest#isEqual}); GitLab's plain token is hashed first so
 * that its length does not leak either. The secret never leaves this class.
 */
final class SignatureCheck {
    static final String GITHUB_HEADER = "X-Hub-Signature-256";
    static final String GITLAB_HEADER = "X-Gitlab-Token";

    private SignatureCheck() {
    }

    /**
     * @param headers reads a request header by name (null when absent)
     * @return null when the request passes, else a short reason for the log (never a secret or a signature)
     */
    static String verify(SignatureStyle style, String secret, Function<String, String> headers, byte[] body) {
        return switch (style) {
            case NONE -> null;
            case GITHUB -> github(secret, headers.apply(GITHUB_HEADER), body);
            case GITLAB -> gitlab(secret, headers.apply(GITLAB_HEADER));
        };
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
        return MessageDigest.isEqual(sha256(secret), sha256(header)) ? null : GITLAB_HEADER + " does not match";
    }

    /** HMAC-SHA256 of {@code body} keyed with {@code secret}, as GitHub computes it. */
    static byte[] hmac(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable in this JVM", e);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable in this JVM", e);
        }
    }
}
