package dev.herald.agent.model;

import java.time.Duration;
import java.util.Locale;

/**
 * A model call that failed, with a message a person can act on: the subject ({@code model - <endpoint>}),
 * the fact with its numbers, and the next step. Built only by the factories below, which decide whether
 * the failure is worth retrying later. Messages never contain the API key.
 */
public final class ModelException extends Exception {

    /** What went wrong; {@link #retryable} says whether the same request may succeed later. */
    public enum Kind {
        AUTH(false),
        FORBIDDEN(false),
        NOT_FOUND(false),
        REJECTED(false),
        RATE_LIMITED(true),
        SERVER(true),
        UNREACHABLE(true),
        TIMEOUT(true),
        BROKEN(true),
        PROTOCOL(false),
        INTERRUPTED(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean retryable() {
            return retryable;
        }
    }

    private final Kind kind;
    private final int httpStatus;

    private ModelException(Kind kind, int httpStatus, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.httpStatus = httpStatus;
    }

    public Kind kind() {
        return kind;
    }

    /** True when the same request may succeed later (rate limits, server errors, timeouts, lost connections). */
    public boolean retryable() {
        return kind.retryable();
    }

    /** The HTTP status that caused it, or 0 when there was none. */
    public int httpStatus() {
        return httpStatus;
    }

    /** True when the call was cut off by the turn's interrupt, not by a failure. */
    public boolean isInterrupted() {
        return kind == Kind.INTERRUPTED;
    }

    public static ModelException unauthorized(String endpoint, int status, boolean keyConfigured) {
        return new ModelException(Kind.AUTH, status, keyConfigured
                ? "model - " + endpoint + " rejected the API key (HTTP " + status + "); check model.api_key"
                : "model - " + endpoint + " requires an API key (HTTP " + status + "); set model.api_key", null);
    }

    public static ModelException forbidden(String endpoint, String model, int status, String detail) {
        return new ModelException(Kind.FORBIDDEN, status, "model - " + endpoint + " refused access to '" + model + "' (HTTP " + status
                + detailSuffix(detail) + "); check that model.api_key may use model.name", null);
    }

    public static ModelException modelNotFound(String model, String endpoint, int status) {
        return new ModelException(Kind.NOT_FOUND, status,
                "model - '" + model + "' not found at " + endpoint + " (HTTP " + status + "); check model.name", null);
    }

    public static ModelException endpointNotFound(String url, int status) {
        return new ModelException(Kind.NOT_FOUND, status, "model - " + url + " does not exist (HTTP " + status
                + "); check model.base_url (OpenAI-compatible servers usually end in /v1)", null);
    }

    public static ModelException rejected(String endpoint, int status, String detail) {
        return new ModelException(Kind.REJECTED, status, "model - " + endpoint + " rejected the request (HTTP " + status
                + detailSuffix(detail) + "); check model.name and the server's log, or start a new session with /new if the "
                + "conversation is too long", null);
    }

    public static ModelException quotaExhausted(String endpoint, int status, String detail) {
        return new ModelException(Kind.REJECTED, status, "model - " + endpoint + " says the account is out of quota (HTTP " + status
                + detailSuffix(detail) + "); check the provider's billing", null);
    }

    public static ModelException rateLimited(String endpoint, int attempts, long elapsedMs, Duration retryAfter, String detail) {
        String wait = retryAfter == null ? "" : ", retry after " + number(retryAfter.toSeconds()) + " s";
        return new ModelException(Kind.RATE_LIMITED, 429, "model - " + endpoint + " is rate limiting" + tried(attempts, elapsedMs)
                + " (HTTP 429" + wait + detailSuffix(detail) + "); wait and try again, or lower the request rate", null);
    }

    public static ModelException serverError(String endpoint, int status, int attempts, long elapsedMs, String detail) {
        return new ModelException(Kind.SERVER, status, "model - " + endpoint + " failed" + tried(attempts, elapsedMs)
                + " (last: HTTP " + status + detailSuffix(detail) + "); check the model server's log", null);
    }

    public static ModelException streamError(String endpoint, String detail) {
        return new ModelException(Kind.SERVER, 0, "model - " + endpoint + " reported an error mid-stream (" + detail
                + "); check the model server's log and try again", null);
    }

    public static ModelException unreachable(String endpoint, int attempts, long elapsedMs, String why, Throwable cause) {
        return new ModelException(Kind.UNREACHABLE, 0,
                "model - " + endpoint + " unreachable" + tried(attempts, elapsedMs) + " (" + why + "); is the server running?", cause);
    }

    public static ModelException idleTimeout(String endpoint, Duration idle, int attempts, long elapsedMs, boolean midStream) {
        String fact = midStream
                ? " went silent mid-reply for " + number(idle.toMillis()) + " ms (idle timeout" + triedInside(attempts, elapsedMs)
                        + "); the reply was cut off; try again or raise model.idle_timeout"
                : " sent nothing for " + number(idle.toMillis()) + " ms (idle timeout" + triedInside(attempts, elapsedMs)
                        + "); is the model still loading? raise model.idle_timeout or check the server";
        return new ModelException(Kind.TIMEOUT, 0, "model - " + endpoint + fact, null);
    }

    public static ModelException broken(String endpoint, int attempts, long elapsedMs, String why, Throwable cause) {
        return new ModelException(Kind.BROKEN, 0, "model - " + endpoint + " dropped the connection" + tried(attempts, elapsedMs)
                + " (" + why + "); the reply was cut off; try again", cause);
    }

    /** A stream whose body ended cleanly before its answer did (no {@code [DONE]}, no finish reason). */
    public static ModelException endedEarly(String endpoint, int attempts, long elapsedMs, String why) {
        return new ModelException(Kind.BROKEN, 0, "model - " + endpoint + " ended its reply early" + tried(attempts, elapsedMs)
                + " (" + why + "); the reply was cut off; check the model server's log", null);
    }

    public static ModelException protocol(String endpoint, String detail) {
        return new ModelException(Kind.PROTOCOL, 0, "model - " + endpoint + " did not answer like an OpenAI-compatible server ("
                + detail + "); check model.base_url", null);
    }

    public static ModelException interrupted(String reason) {
        return new ModelException(Kind.INTERRUPTED, 0, "model - call interrupted (" + (reason == null ? "interrupted" : reason) + ")", null);
    }

    /** {@code 2,140}: grouped digits, independent of the machine's locale. */
    static String number(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    private static String tried(int attempts, long elapsedMs) {
        return " after " + attempts + (attempts == 1 ? " attempt" : " attempts") + " in " + number(elapsedMs) + " ms";
    }

    private static String triedInside(int attempts, long elapsedMs) {
        return ", " + attempts + (attempts == 1 ? " attempt" : " attempts") + " in " + number(elapsedMs) + " ms";
    }

    private static String detailSuffix(String detail) {
        return detail == null || detail.isBlank() ? "" : ": " + detail;
    }
}
