package dev.herald.web.api;

import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/**
 * What every API request passes before its body is parsed: the bearer key, the body size limit, and the
 * session and request-id headers. The key is compared in constant time (both sides hashed first, so the
 * length does not leak either) and appears nowhere but in this object.
 */
final class RequestGuard {
    static final String SESSION_HEADER = "X-Herald-Session-Id";
    static final String LEGACY_SESSION_HEADER = "X-Hermes-Session-Id";
    static final String REQUEST_ID_HEADER = "X-Herald-Request-Id";
    static final String USER_HEADER = "X-Herald-User";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final byte[] keyDigest;
    private final long maxBodyBytes;

    RequestGuard(String apiKey, long maxBodyBytes) {
        this.keyDigest = apiKey == null ? null : sha256(apiKey);
        this.maxBodyBytes = maxBodyBytes;
    }

    /** 401 unless the request carries {@code Authorization: Bearer <key>} (when a key is configured). */
    void authorize(Context ctx) {
        if (keyDigest == null) {
            return;
        }
        String header = ctx.header("Authorization");
        if (header == null || header.isBlank()) {
            throw ApiError.unauthorized("missing API key: send 'Authorization: Bearer <key>' with the key configured for api_server");
        }
        String presented = header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip() : "";
        if (!MessageDigest.isEqual(keyDigest, sha256(presented))) {
            throw ApiError.unauthorized("invalid API key: the bearer key does not match the key configured for api_server");
        }
    }

    /**
     * Reads the body, refusing with 413 before reading when the declared length is over the limit, and
     * while reading once a chunked body passes it (so an endless body costs at most the limit).
     */
    byte[] readBody(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBodyBytes) {
            throw tooLarge(declared + " bytes declared");
        }
        try (InputStream in = ctx.req().getInputStream()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Math.max(declared, 1024), 65_536));
            byte[] buffer = new byte[8192];
            long total = 0;
            int n;
            while ((n = in.read(buffer)) > 0) {
                total += n;
                if (total > maxBodyBytes) {
                    throw tooLarge("more than " + maxBodyBytes + " bytes sent");
                }
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw ApiError.badRequest("the request body could not be read (" + e.getClass().getSimpleName() + ")", null);
        }
    }

    /**
     * Who the caller says the end user is ({@value #USER_HEADER}), for the access rules of durable sessions;
     * {@code defaultUser} when absent. The bearer key authenticates the calling program; this names the person
     * it acts for, within that trust.
     */
    static String userName(Context ctx, String defaultUser) {
        String user = ctx.header(USER_HEADER);
        if (user == null || user.isBlank()) {
            return defaultUser;
        }
        if (!NAME.matcher(user).matches()) {
            throw ApiError.badRequest(USER_HEADER + " must be 1-128 characters of letters, digits, '.', '_', ':' or '-'", USER_HEADER);
        }
        return user;
    }

    /** The durable session name from {@value #SESSION_HEADER} (or the Hermes name), or null for a stateless request. */
    static String sessionName(Context ctx) {
        String herald = ctx.header(SESSION_HEADER);
        String hermes = ctx.header(LEGACY_SESSION_HEADER);
        if (herald != null && hermes != null && !herald.equals(hermes)) {
            throw ApiError.badRequest(SESSION_HEADER + " and " + LEGACY_SESSION_HEADER + " name different sessions; send one of them",
                    SESSION_HEADER);
        }
        String header = herald != null ? SESSION_HEADER : LEGACY_SESSION_HEADER;
        return validName(herald != null ? herald : hermes, header);
    }

    /** The client's idempotency id from {@value #REQUEST_ID_HEADER}, or null. */
    static String requestId(Context ctx) {
        return validName(ctx.header(REQUEST_ID_HEADER), REQUEST_ID_HEADER);
    }

    private static String validName(String value, String header) {
        if (value == null) {
            return null;
        }
        if (!NAME.matcher(value).matches()) {
            throw ApiError.badRequest(header + " must be 1-128 characters of letters, digits, '.', '_', ':' or '-' (got "
                    + value.length() + " characters)", header);
        }
        return value;
    }

    private ApiError tooLarge(String what) {
        return ApiError.tooLarge("the request body is too large (" + what + "; the limit is " + maxBodyBytes
                + " bytes): send fewer or shorter messages, or raise api_server's max body size");
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
