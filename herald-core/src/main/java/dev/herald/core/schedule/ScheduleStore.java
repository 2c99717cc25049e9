package dev.herald.core.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable jobs and their occurrences, in the same database as the turns.
 *
 * <p>The exactly-once rule lives in {@link #claim}: one conditional update moves a job's next time on from
 * the value the caller read, and records the occurrence it fires in the same transaction. Of several
 * schedulers (threads, processes, nodes on one PostgreSQL) that read the same due time, exactly one
 * claims it; the others change nothing. Every other change is a conditional update too.
 */
public interface ScheduleStore {

    /**
     * Stores a new job.
     *
     * @throws IllegalArgumentException when a job with its id exists
     */
    void create(Job job);

    /**
     * Stores a job from the configuration: inserts it, or replaces the definition of the stored job with its
     * id (whoever made that one: the configuration wins). The stored next run is kept when the schedule
     * and its zone are unchanged and the job stays enabled, so a restart neither repeats nor skips an
     * occurrence; otherwise it becomes {@code job.nextRunAt()}. Returns the job as stored.
     */
    Job putConfigured(Job job);

    Optional<Job> find(String id);

    /** Every job, by id. */
    List<Job> list();

    /** Pauses ({@code enabled} false) or resumes a job, setting its next run; false when there is no such job. */
    boolean setEnabled(String id, boolean enabled, Instant nextRunAt, Instant now);

    /** Deletes a job and its occurrences; false when there was none. */
    boolean delete(String id);

    /**
     * Makes the jobs that run in a chat of {@code platform} as {@code fromUser} run as {@code toUser} (and be theirs to
     * manage). One transaction; idempotent. Returns how many jobs changed.
     */
    int reassignUser(dev.herald.core.platform.Platform platform, String fromUser, String toUser);

    /** Enabled jobs whose next run is at or before {@code now}, earliest first; at most {@code limit}. */
    List<Job> due(Instant now, int limit);

    /**
     * The claim of one due time: moves job {@code id}'s next run from {@code expected} to {@code next} (null:
     * no more runs) only if it is still {@code expected} and the job enabled, and in the same transaction
     * records {@code run} (when not null) and, for a run that is already done (skipped, missed), the job's
     * last outcome. False, and nothing changed, when another claim came first.
     */
    boolean claim(String id, Instant expected, Instant next, JobRun run);

    /** Records an occurrence outside the schedule ("run now"); false when the job is gone or one exists at that time. */
    boolean claimManual(JobRun run);

    /** CLAIMED to SUBMITTED: the gateway has stored the turn. */
    boolean markSubmitted(String jobId, Instant scheduledAt, Instant now);

    /** A claimed or submitted occurrence is done with {@code outcome}; the job's last outcome follows. */
    boolean finish(String jobId, Instant scheduledAt, String outcome, Instant now);

    /** Occurrences still CLAIMED that were claimed before {@code before}: their submission may have been cut off. */
    List<JobRun> claimedBefore(Instant before, int limit);

    /**
     * Whether job {@code id} has an occurrence that is not over: claimed, or submitted and its turn not ended, or its
     * turn cut off and resumed by a turn that has not ended, or cut off at or after {@code resumeSince} with its
     * resume still to come (see {@link #settle}).
     */
    boolean hasOpenRun(String id, Instant resumeSince);

    /**
     * Finishes every SUBMITTED occurrence whose turn has ended, with an outcome from the turn ({@code ok},
     * {@code failed}, {@code interrupted}, {@code cancelled}, {@code undeliverable}, {@code partial}); returns
     * those this call finished.
     *
     * <p>A turn cut off by a stop, a crash or a takeover is resumed by another turn of its lane (the resume turn, which
     * continues the lane's newest started turn), maybe more than once: the occurrence follows those turns and ends with
     * the last one's outcome, prefixed {@code resumed, } ({@code resumed, ok}). While its lane waits for the resume
     * (resume-pending, not suspended) and the cut-off happened at or after {@code resumeSince}, it is not over; a
     * cut-off turn whose lane went on with another turn, or whose resume did not come in time, ends
     * {@code interrupted}.
     */
    List<JobRun> settle(Instant now, Instant resumeSince);

    /** The latest occurrences of a job, newest first. */
    List<JobRun> runs(String id, int limit);

    /** Deletes finished occurrences last changed before {@code before}; returns how many. */
    int prune(Instant before);
}
