package dev.herald.core.schedule;

import dev.herald.core.platform.Platform;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * One occurrence of a job: claimed (by exactly one node, in the same transaction that moved the job's
 * next time on), submitted to the gateway as a turn, then done with an outcome. Its key is the job and
 * the scheduled time; {@link #messageId} is the turn's platform message id, so the gateway's durable
 * dedupe makes a second submission of the same occurrence (after a crash) a duplicate.
 *
 * @param jobId       the job
 * @param scheduledAt the time it was due (for a manual run: when it was asked for)
 * @param kind        on time, catch-up, manual, or not run (skipped or missed: recorded, never submitted)
 * @param state       claimed, submitted or done
 * @param platform    the platform of the turn's source (the dedupe key's first half)
 * @param messageId   the turn's platform message id
 * @param outcome     the result once done ({@code ok}, {@code failed}, {@code refused}, {@code skipped}, ...), else null
 * @param claimedAt   when it was claimed
 * @param updatedAt   when its state last changed
 */
public record JobRun(String jobId, Instant scheduledAt, Kind kind, State state, Platform platform, String messageId, String outcome,
        Instant claimedAt, Instant updatedAt) {

    public enum Kind {
        ON_TIME, CATCH_UP, MANUAL, NOT_RUN;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public enum State { CLAIMED, SUBMITTED, DONE }

    public JobRun {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(scheduledAt, "scheduledAt");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(claimedAt, "claimedAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }

    /** The platform message id of a job's occurrence: {@code schedule:<job>:<epoch millis>}. */
    public static String messageId(String jobId, Instant scheduledAt) {
        return "schedule:" + jobId + ":" + scheduledAt.toEpochMilli();
    }

    /** The job of an occurrence's message id ({@link #messageId}); empty for any other id. */
    public static java.util.Optional<String> jobOf(String messageId) {
        if (messageId == null || !messageId.startsWith("schedule:")) {
            return java.util.Optional.empty();
        }
        int end = messageId.lastIndexOf(':');
        String id = end > 9 ? messageId.substring(9, end) : "";
        return Job.ID.matcher(id).matches() ? java.util.Optional.of(id) : java.util.Optional.empty();
    }
}
