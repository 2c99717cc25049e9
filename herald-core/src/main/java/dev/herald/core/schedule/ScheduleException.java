package dev.herald.core.schedule;

/** A request about jobs that cannot be done; the message is for the person who asked (a chat user, the model, an operator). */
public final class ScheduleException extends RuntimeException {
    public ScheduleException(String message) {
        super(message, null, false, false);
    }
}
