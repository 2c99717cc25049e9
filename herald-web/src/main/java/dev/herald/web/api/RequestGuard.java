package dev.herald.web.api;

import dev.herald.web.LimitedBody;
import io.javalin.http.Context;
import java.io.IOException;
import dev.herald.web.access.WebAccess;
import dev.herald.web.access.WebGuard;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What every API request passes before its body is parsed: who may call ({@link WebAccess#checkApi}: the
 * bearer key with its wrong-key throttle, or, without a key, this machine only and no cross-site browser
 * request), a JSON content type (415: a browser's "simple" cross-site POST cannot send one), the body size
 * limit, and the session, user and request-id headers. A web account's API key ({@code hk_...}) decides the user
 * ({@code u:<name>}); {@value #USER_HEADER} is then honoured only for an admin's key (and the configured key). The key is compared in constant time and appears
 * nowhere but in {@link WebAccess}.
 */
final class RequestGuard {
    static final String SESSION_HEADER = "X-Herald-Session-Id";
    static final String LEGACY_SESSION_HEADER = "X-Hermes-Session-Id";
    static final String REQUEST_ID_HEADER = "X-Herald-Request-Id";
    static final String USER_HEADER = "X-Herald-User";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final WebAccess access;
    private final long maxBodyBytes;
    private volatile dev.herald.web.access.ApiKeys keys;
    /** The request attribute naming the account whose API key the request carries. */
    private static final String KEY_USER = "herald.apiKeyUser";

    RequestGuard(WebAccess access, long maxBodyBytes) {
        this.access = access;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Accepts the API keys of web accounts ({@code hk_...}) from now on. */
    void useApiKeys(dev.herald.web.access.ApiKeys apiKeys) {
        this.keys = apiKeys;
    }

    /** Refuses the request unless it may call the API: 401 (key), 429 (too many wrong keys), 403 (not this machine, cross-site). */
    void authorize(Context ctx) {
        WebAccess.Request facts = WebGuard.facts(ctx, !"GET".equals(ctx.method().name()));
        dev.herald.web.access.ApiKeys apiKeys = keys;
        if (apiKeys != null && dev.herald.web.access.ApiKeys.looksLikeKey(facts.bearer())) {
            WebAccess.Verdict v = access.checkApiKey(facts, apiKeys);
            switch (v.status()) {
                case 200 -> ctx.attribute(KEY_USER, v.user());
                case 429 -> throw ApiError.rateLimited(v.message(), v.retryAfter());
                default -> throw ApiError.unauthorized(v.message());
            }
            return;
        }
        String auth = ctx.header("Authorization");
        if (auth != null && !auth.isBlank() && facts.bearer() == null) {
            facts = withBearer(facts, ""); // an Authorization header that is not a bearer is a wrong key, not a missing one
        }
        WebAccess.Verdict v = access.checkApi(facts);
        switch (v.status()) {
            case 200 -> {
            }
            case 401 -> throw ApiError.unauthorized(v.message());
            case 429 -> throw ApiError.rateLimited(v.message(), v.retryAfter());
            default -> throw ApiError.forbidden(v.message());
        }
    }

    /** 415 unless the body is declared as JSON ({@code application/json}, any parameters). */
    static void requireJson(Context ctx) {
        String type = ctx.header("Content-Type");
        String base = type == null ? "" : type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (!base.equals("application/json")) {
            throw ApiError.unsupportedMediaType("the request body must be JSON: send 'Content-Type: application/json'"
                    + (type == null ? " (none was sent)" : " (got " + shorten(type) + ")"));
        }
    }

    private static WebAccess.Request withBearer(WebAccess.Request r, String bearer) {
        return new WebAccess.Request(r.remoteAddress(), r.host(), r.origin(), r.secFetchSite(), r.sessionCookie(), r.csrfHeader(), bearer,
                r.stateChanging(), r.scheme(), r.forwardedFor(), r.forwarded(), r.what());
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }

    /** Reads the body, refusing with 413 over the limit ({@link LimitedBody}: declared or sent, and read to its end first). */
    byte[] readBody(Context ctx) {
        try {
            byte[] body = LimitedBody.read(ctx, maxBodyBytes);
            if (body == null) {
                long declared = ctx.req().getContentLengthLong();
                throw tooLarge(declared > maxBodyBytes ? declared + " bytes declared" : "more than " + maxBodyBytes + " bytes sent");
            }
            return body;
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
        dev.herald.web.access.WebUser keyUser = ctx.attribute(KEY_USER);
        String user = ctx.header(USER_HEADER);
        if (keyUser != null) {
            if (user == null || user.isBlank() || user.equals(keyUser.owner())) {
                return keyUser.owner();
            }
            if (!keyUser.admin()) {
                throw ApiError.forbidden(USER_HEADER + " is honoured only for admin keys and the configured key; this key is "
                        + keyUser.name() + "'s, so leave the header out");
            }
        }
        if (user == null || user.isBlank()) {
            return defaultUser;
        }
        return validName(user, USER_HEADER);
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
        if (!NAME.matcher(value).matches() || value.contains("..")) {
            throw ApiError.badRequest(header + " must be 1-128 characters of letters, digits, '.', '_', ':' or '-', without '..' (got "
                    + value.length() + " characters)", header);
        }
        return value;
    }

    private ApiError tooLarge(String what) {
        return ApiError.tooLarge("the request body is too large (" + what + "; the limit is " + maxBodyBytes
                + " bytes): send fewer or shorter messages, or raise api_server's max body size");
    }
}
