package dev.herald.web.api;

import java.time.Duration;

/**
 * A request that ends in an OpenAI-shaped error: {@code {"error":{"message","type","param","code"}}}.
 * Thrown inside the API routes and written by {@link CompletionWriter#writeError}; messages are readable,
 * say what to do next, and never contain a secret.
 */
final class ApiError extends RuntimeException {
    /** The code of an answer that broke off mid-way. */
    static final String CUT_OFF = "answer_cut_off";

    private final int status;
    private final String type;
    private final String param;
    private final String code;
    private final Duration retryAfter;

    private ApiError(int status, String type, String message, String param, String code, Duration retryAfter) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.code = code;
        this.retryAfter = retryAfter;
    }

    static ApiError badRequest(String message, String param) {
        return new ApiError(400, "invalid_request_error", message, param, "invalid_request", null);
    }

    static ApiError unauthorized(String message) {
        return new ApiError(401, "authentication_error", message, null, "invalid_api_key", null);
    }

    static ApiError forbidden(String message) {
        return new ApiError(403, "permission_error", message, null, "refused", null);
    }

    static ApiError unsupportedMediaType(String message) {
        return new ApiError(415, "invalid_request_error", message, "Content-Type", "unsupported_media_type", null);
    }

    static ApiError rateLimited(String message, Duration retryAfter) {
        return new ApiError(429, "rate_limit_error", message, null, "rate_limit_exceeded", retryAfter);
    }

    /** An error the web server produced before a route ran (404, 405, 431, 414, 400, ...). */
    static ApiError fromServer(int status, String message) {
        String code = switch (status) {
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 413 -> "request_too_large";
            case 414 -> "uri_too_long";
            case 431 -> "request_headers_too_large";
            default -> status >= 500 ? "internal_error" : "invalid_request";
        };
        return new ApiError(status, status >= 500 ? "server_error" : "invalid_request_error", message, null, code, null);
    }

    static ApiError conflict(String message, String param) {
        return new ApiError(409, "invalid_request_error", message, param, "duplicate_request", null);
    }

    static ApiError tooLarge(String message) {
        return new ApiError(413, "invalid_request_error", message, null, "request_too_large", null);
    }

    static ApiError internal(String message) {
        return new ApiError(500, "server_error", message, null, "internal_error", null);
    }

    static ApiError badGateway(String message) {
        return new ApiError(502, "server_error", message, null, "agent_error", null);
    }

    /**
     * The model's answer broke off: {@code reply} is the part that came followed by a notice that it is incomplete
     * ({@link dev.herald.core.turn.TurnOutcome.Partial#replyText()}). A client that read the part as it streamed
     * gets only the notice ({@link #seenUpTo}).
     */
    static ApiError cutOff(String reply) {
        return new ApiError(502, "server_error", reply, null, CUT_OFF, null);
    }

    /** This error for a client that has already read {@code streamed}: a cut-off answer's error keeps only its notice. */
    ApiError seenUpTo(CharSequence streamed) {
        if (!CUT_OFF.equals(code) || streamed.isEmpty()) {
            return this;
        }
        return new ApiError(status, type, dev.herald.core.turn.TurnOutcome.Partial.noticeOf(getMessage()), param, code, retryAfter);
    }

    static ApiError unavailable(String message, String code, Duration retryAfter) {
        return new ApiError(503, "server_error", message, null, code, retryAfter);
    }

    static ApiError timeout(String message) {
        return new ApiError(504, "server_error", message, null, "timeout", null);
    }

    int status() {
        return status;
    }

    String type() {
        return type;
    }

    String param() {
        return param;
    }

    String code() {
        return code;
    }

    /** How long the client should wait before retrying, or null. */
    Duration retryAfter() {
        return retryAfter;
    }
}
