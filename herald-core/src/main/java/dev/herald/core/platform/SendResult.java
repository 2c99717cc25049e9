package dev.herald.core.platform;

import java.time.Duration;

/**
 * What happened to one send. Adapters return failures as values; they throw only for programming errors.
 *
 * @param success    the platform accepted the message
 * @param messageId  the platform's id of the sent message, when it has one
 * @param error      a readable reason for a failure (never contains a secret)
 * @param retryable  a later attempt may succeed (rate limit, timeout, 5xx)
 * @param retryAfter how long the platform asked us to wait, or null
 */
public record SendResult(boolean success, String messageId, String error, boolean retryable, Duration retryAfter) {

    public static SendResult sent(String messageId) {
        return new SendResult(true, messageId, null, false, null);
    }

    public static SendResult failed(String error, boolean retryable) {
        return new SendResult(false, null, error, retryable, null);
    }

    public static SendResult rateLimited(String error, Duration retryAfter) {
        return new SendResult(false, null, error, true, retryAfter);
    }
}
