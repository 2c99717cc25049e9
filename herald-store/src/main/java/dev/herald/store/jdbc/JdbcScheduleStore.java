package dev.herald.store.jdbc;

import dev.herald.core.platform.Platform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobRun;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.schedule.ScheduleStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Scheduled jobs and their occurrences, the same statements on both databases (flags are 0/1 integers in
 * both schemas).
 *
 * <p>Concurrency: every change is one conditional statement, so nothing relies on this JVM. The claim is an
 * UPDATE of {@code next_run_at} conditioned on the value the scheduler read: on SQLite writes are serial;
 * on PostgreSQL a second node's UPDATE of the same row waits for the first to commit, re-reads the row and
 * finds the condition false (READ COMMITTED re-checks an updated row), so it changes nothing and inserts no
 * occurrence. The occurrence's insert is in the claim's transaction.
 */
public final class JdbcScheduleStore<C extends JdbcConn> implements ScheduleStore {
    private static final String JOB_COLUMNS = """
            id, prompt, schedule, time_zone, anchor_at, source, misfire, catch_up_seconds, enabled, defined_by, created_by,
            created_at, updated_at, next_run_at, last_run_at, last_outcome, last_outcome_at, model, tools""";
    private static final String RUN_COLUMNS = "job_id, scheduled_at, kind, state, platform, message_id, outcome, claimed_at, updated_at";
    private static final String INSERT_JOB = "INSERT INTO schedule_jobs (" + JOB_COLUMNS + """
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""";
    private static final String REDEFINE = """
            UPDATE schedule_jobs SET prompt = ?, schedule = ?, time_zone = ?, anchor_at = ?, source = ?, misfire = ?,
                catch_up_seconds = ?, enabled = ?, defined_by = ?, created_by = ?, updated_at = ?, next_run_at = ?, model = ?, tools = ?
            WHERE id = ?""";
    private static final String INSERT_RUN = "INSERT INTO schedule_runs (" + RUN_COLUMNS + """
            ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""";
    private static final String CLAIM = """
            UPDATE schedule_jobs SET next_run_at = ?, updated_at = ?,
                last_run_at = ?, last_outcome = ?, last_outcome_at = ?
            WHERE id = ? AND enabled = 1 AND next_run_at = ?""";
    private static final String TERMINAL = "('DELIVERED', 'FAILED', 'INTERRUPTED', 'CANCELLED', 'UNDELIVERABLE')";
    /*
     * A submitted occurrence's turn was stored before it was marked submitted, so a submitted occurrence without a
     * turn had its turn removed since (an operator purged the conversation, which takes only ended turns): it has
     * ended too, with an outcome nobody can read any more.
     */
    private static final String TURN_OF_RUN = """
            r.job_id, r.scheduled_at, r.state AS run_state, t.id, t.session_key, t.state, t.outcome,
                COALESCE(t.started_at, t.received_at) AS started, t.updated_at FROM schedule_runs r
            LEFT JOIN turns t ON t.platform = r.platform AND t.platform_message_id = r.message_id""";
    private static final String ENDED = "SELECT " + TURN_OF_RUN + " WHERE r.state = 'SUBMITTED' AND (t.id IS NULL OR t.state IN "
            + TERMINAL + ") ORDER BY r.claimed_at LIMIT 200";
    private static final String NOT_DONE = "SELECT " + TURN_OF_RUN + " WHERE r.job_id = ? AND r.state <> 'DONE'";
    /*
     * The turn that continues a cut-off turn of a lane: the first of the lane's later turns to start after it (a resume
     * turn starts before the messages that waited behind it, though they arrived first). A resume turn continues the
     * lane's newest started turn, so when that first one is a resume turn it is the cut-off turn's continuation; when it
     * is anything else, the cut-off turn was not resumed.
     */
    private static final String STARTED_AFTER = """
            SELECT id, origin, state, outcome, COALESCE(started_at, received_at) AS started, updated_at FROM turns
            WHERE session_key = ? AND id > ? AND state NOT IN ('RECEIVED', 'CANCELLED') AND COALESCE(started_at, received_at) >= ?
            ORDER BY COALESCE(started_at, received_at), id LIMIT 1""";
    /** Resumes followed from one cut-off run at most (the stuck-loop rule suspends a lane long before). */
    private static final int MAX_RESUMES = 10;
    private static final String FINISH = """
            UPDATE schedule_runs SET state = 'DONE', outcome = ?, updated_at = ?
            WHERE job_id = ? AND scheduled_at = ? AND state <> 'DONE'""";
    private static final String LAST_OUTCOME = """
            UPDATE schedule_jobs SET last_outcome = ?, last_outcome_at = ?, last_run_at = ?
            WHERE id = ? AND (last_run_at IS NULL OR last_run_at <= ?)""";

    private final Transactions<C> tx;

    public JdbcScheduleStore(Transactions<C> tx) {
        this.tx = Objects.requireNonNull(tx, "tx");
    }

    @Override
    public void create(Job job) {
        boolean stored = tx.write("job " + job.id(), c -> c.update(INSERT_JOB, jobRow(job)) == 1);
        if (!stored) {
            throw new IllegalArgumentException("schedule - a job with id " + job.id() + " exists already");
        }
    }

    @Override
    public Job putConfigured(Job job) {
        return tx.write("job " + job.id(), c -> {
            Optional<Job> old = find(c, job.id());
            if (old.isEmpty()) {
                c.update(INSERT_JOB, jobRow(job));
                return job;
            }
            Job was = old.get();
            boolean same = was.schedule().text().equals(job.schedule().text()) && was.schedule().zone().equals(job.schedule().zone())
                    && was.enabled() && job.enabled();
            // unchanged: keep the stored next run (and the anchor 'every' counts from), so a restart neither repeats nor skips one
            Instant anchor = same ? anchor(was) : anchor(job);
            Instant next = same ? was.nextRunAt() : job.nextRunAt();
            c.update(REDEFINE, job.prompt(), job.schedule().text(), job.schedule().zone().getId(), Micros.of(anchor),
                    Json.source(job.source()), job.misfire().code(), job.catchUpWindow().toSeconds(), job.enabled() ? 1 : 0,
                    job.definedBy().code(), job.createdBy(), Micros.of(job.updatedAt()), Micros.ofNullable(next), job.model(),
                    tools(job), job.id());
            return find(c, job.id()).orElseThrow();
        });
    }

    @Override
    public Optional<Job> find(String id) {
        return tx.read("job " + id, c -> find(c, id));
    }

    private Optional<Job> find(C c, String id) throws SQLException {
        return c.one("SELECT " + JOB_COLUMNS + " FROM schedule_jobs WHERE id = ?", JdbcScheduleStore::job, id);
    }

    @Override
    public List<Job> list() {
        return tx.read("jobs", c -> list(c, true));
    }

    /**
     * Every job, by id, on connection {@code c}; {@code withOptions} false for a schema before the jobs' model and tools
     * columns (SQLite V11, PostgreSQL V7), read by {@code herald schedule list} before a new Herald migrated it.
     */
    public static <C extends JdbcConn> List<Job> list(C c, boolean withOptions) throws SQLException {
        String columns = withOptions ? JOB_COLUMNS : JOB_COLUMNS.replace(", model, tools", ", NULL AS model, NULL AS tools");
        return c.listReadable("SELECT " + columns + " FROM schedule_jobs ORDER BY id", JdbcScheduleStore::job, JdbcScheduleStore::idOf);
    }

    @Override
    public boolean setEnabled(String id, boolean enabled, Instant nextRunAt, Instant now) {
        return tx.write("job " + id, c -> c.update("UPDATE schedule_jobs SET enabled = ?, next_run_at = ?, updated_at = ? WHERE id = ?",
                enabled ? 1 : 0, Micros.ofNullable(nextRunAt), Micros.of(now), id) == 1);
    }

    @Override
    public int reassignUser(Platform platform, String fromUser, String toUser) {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(fromUser, "fromUser");
        Objects.requireNonNull(toUser, "toUser");
        // only jobs whose source names the user (as JSON writes it) are read and parsed; the parse decides
        String named = "%\"user_id\":" + Json.quoted(fromUser) + "%";
        if (!tx.read("jobs of " + platform + " user " + fromUser, c -> c.exists("SELECT 1 FROM schedule_jobs WHERE source LIKE ?", named))) {
            return 0; // nothing to move: no write (this runs at every start)
        }
        return tx.write("jobs of " + platform + " user " + fromUser, c -> {
            int n = 0;
            for (String[] row : c.list("SELECT id, source FROM schedule_jobs WHERE source LIKE ?", rs -> new String[] {rs.getString(1),
                    rs.getString(2)}, named)) {
                dev.herald.core.session.SessionSource source = Json.source(row[1], "schedule_jobs.source");
                if (source.platform().equals(platform) && fromUser.equals(source.userId())) {
                    dev.herald.core.session.SessionSource theirs = new dev.herald.core.session.SessionSource(source.platform(),
                            source.chatId(), source.chatType(), toUser, source.userName(), source.threadId(), source.chatName());
                    n += c.update("UPDATE schedule_jobs SET source = ? WHERE id = ? AND source = ?", Json.source(theirs), row[0], row[1]);
                }
            }
            return n;
        });
    }

    @Override
    public boolean delete(String id) {
        return tx.write("job " + id, c -> {
            c.update("DELETE FROM schedule_runs WHERE job_id = ?", id);
            return c.update("DELETE FROM schedule_jobs WHERE id = ?", id) == 1;
        });
    }

    @Override
    public List<Job> due(Instant now, int limit) {
        return tx.read("due jobs", c -> c.listReadable("SELECT " + JOB_COLUMNS + """
                 FROM schedule_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
                ORDER BY next_run_at LIMIT ?""", JdbcScheduleStore::job, JdbcScheduleStore::idOf, Micros.of(now), limit));
    }

    @Override
    public boolean claim(String id, Instant expected, Instant next, JobRun run) {
        Objects.requireNonNull(expected, "expected");
        return tx.write("job " + id, c -> {
            Objects.requireNonNull(run, "run");
            long now = Micros.of(run.claimedAt());
            // a run that fires shows as started until its turn ends; one not run shows its outcome at once
            String outcome = run.state() == JobRun.State.DONE ? run.outcome() : "started";
            if (c.update(CLAIM, Micros.ofNullable(next), now, Micros.of(run.scheduledAt()), outcome, now, id, Micros.of(expected)) != 1) {
                return false;
            }
            c.update(INSERT_RUN, runRow(run));
            return true;
        });
    }

    @Override
    public boolean claimManual(JobRun run) {
        return tx.write("job " + run.jobId(), c -> c.exists("SELECT 1 FROM schedule_jobs WHERE id = ?", run.jobId())
                && c.update(INSERT_RUN, runRow(run)) == 1);
    }

    @Override
    public boolean markSubmitted(String jobId, Instant scheduledAt, Instant now) {
        return tx.write("job " + jobId, c -> c.update("""
                UPDATE schedule_runs SET state = 'SUBMITTED', updated_at = ? WHERE job_id = ? AND scheduled_at = ? AND state = 'CLAIMED'""",
                Micros.of(now), jobId, Micros.of(scheduledAt)) == 1);
    }

    @Override
    public boolean finish(String jobId, Instant scheduledAt, String outcome, Instant now) {
        return tx.write("job " + jobId, c -> finish(c, jobId, scheduledAt, outcome, now));
    }

    private static boolean finish(JdbcConn c, String jobId, Instant scheduledAt, String outcome, Instant now) throws SQLException {
        long at = Micros.of(scheduledAt);
        if (c.update(FINISH, outcome, Micros.of(now), jobId, at) != 1) {
            return false;
        }
        c.update(LAST_OUTCOME, outcome, Micros.of(now), at, jobId, at);
        return true;
    }

    @Override
    public List<JobRun> claimedBefore(Instant before, int limit) {
        return tx.read("claimed occurrences", c -> c.list("SELECT " + RUN_COLUMNS
                + " FROM schedule_runs WHERE state = 'CLAIMED' AND claimed_at < ? ORDER BY claimed_at LIMIT ?",
                JdbcScheduleStore::run, Micros.of(before), limit));
    }

    @Override
    public boolean hasOpenRun(String id, Instant resumeSince) {
        return tx.read("job " + id, c -> {
            for (RunTurn r : c.list(NOT_DONE, RunTurn::of, id)) {
                if (r.runState().equals("CLAIMED") || r.turnId() != null && !ended(r.state()) || outcome(c, r, resumeSince).isEmpty()) {
                    return true;
                }
            }
            return false;
        });
    }

    /** An occurrence not done yet, with its turn (null fields when there is none). */
    private record RunTurn(String jobId, Instant at, String runState, Long turnId, String lane, String state, String outcome, long started,
            long updated) {
        static RunTurn of(ResultSet rs) throws SQLException {
            long turn = rs.getLong("id");
            Long turnId = rs.wasNull() ? null : turn;
            return new RunTurn(rs.getString("job_id"), Micros.toInstant(rs.getLong("scheduled_at")), rs.getString("run_state"), turnId,
                    rs.getString("session_key"), rs.getString("state"), rs.getString("outcome"), rs.getLong("started"),
                    rs.getLong("updated_at"));
        }
    }

    @Override
    public List<JobRun> settle(Instant now, Instant resumeSince) {
        // decided on a reader first: most passes find nothing to finish (or only runs waiting for a resume) and need no write
        boolean any = tx.read("ended occurrences", c -> {
            for (RunTurn r : c.list(ENDED, RunTurn::of)) {
                if (outcome(c, r, resumeSince).isPresent()) {
                    return true;
                }
            }
            return false;
        });
        if (!any) {
            return List.of();
        }
        return tx.write("ended occurrences", c -> {
            List<JobRun> settled = new ArrayList<>();
            for (RunTurn r : c.list(ENDED, RunTurn::of)) {
                Optional<String> outcome = outcome(c, r, resumeSince);
                if (outcome.isPresent() && finish(c, r.jobId(), r.at(), outcome.get(), now)) {
                    c.one("SELECT " + RUN_COLUMNS + " FROM schedule_runs WHERE job_id = ? AND scheduled_at = ?", JdbcScheduleStore::run,
                            r.jobId(), Micros.of(r.at())).ifPresent(settled::add);
                }
            }
            return settled;
        });
    }

    private static boolean ended(String turnState) {
        return TERMINAL.contains("'" + turnState + "'");
    }

    /**
     * The outcome of an occurrence whose turn ended (or is gone), or empty while it is not over: a cut-off turn is
     * followed through the resume turns that continued it, and the last of them gives the outcome ({@code resumed, ok}).
     * A cut-off turn nothing has continued yet is waited for while its lane waits for a resume (resume-pending, not
     * suspended) and it was cut off at or after {@code resumeSince}; after that, or when the lane went on with
     * something else, it stays {@code interrupted}.
     */
    private static Optional<String> outcome(JdbcConn c, RunTurn r, Instant resumeSince) throws SQLException {
        if (r.turnId() == null || !r.state().equals("INTERRUPTED")) {
            return Optional.of(outcome(r.state(), r.outcome()));
        }
        long turn = r.turnId();
        long started = r.started();
        long cutOff = r.updated();
        for (int i = 0; i < MAX_RESUMES; i++) {
            Optional<Later> next = c.one(STARTED_AFTER, Later::of, r.lane(), turn, started);
            if (next.isEmpty()) {
                boolean waits = cutOff >= Micros.of(resumeSince) && c.one("SELECT resume_pending, suspended FROM sessions WHERE session_key = ?",
                        rs -> rs.getBoolean(1) && !rs.getBoolean(2), r.lane()).orElse(false);
                return waits ? Optional.empty() : Optional.of("interrupted");
            }
            Later n = next.get();
            if (!n.origin().equals("RESUME")) {
                return Optional.of("interrupted");
            }
            if (!ended(n.state())) {
                return Optional.empty();
            }
            if (!n.state().equals("INTERRUPTED")) {
                return Optional.of("resumed, " + outcome(n.state(), n.outcome()));
            }
            turn = n.id();
            started = n.started();
            cutOff = n.updated();
        }
        return Optional.of("interrupted");
    }

    /** The turn a lane started after a cut-off one ({@link #STARTED_AFTER}). */
    private record Later(long id, String origin, String state, String outcome, long started, long updated) {
        static Later of(ResultSet rs) throws SQLException {
            return new Later(rs.getLong("id"), rs.getString("origin"), rs.getString("state"), rs.getString("outcome"), rs.getLong("started"),
                    rs.getLong("updated_at"));
        }
    }

    /** An occurrence's outcome from its turn's final state and outcome kind; {@code purged} when the turn is gone. */
    static String outcome(String turnState, String turnOutcome) {
        if (turnState == null) {
            return "purged";
        }
        return switch (turnState) {
            case "DELIVERED" -> turnOutcome == null || turnOutcome.equals("final") || turnOutcome.equals("completed") ? "ok"
                    : turnOutcome.equals("error") || turnOutcome.equals("failed") ? "failed" : turnOutcome;
            case "FAILED" -> "failed";
            case "INTERRUPTED" -> "interrupted";
            case "CANCELLED" -> "cancelled";
            case "UNDELIVERABLE" -> "undeliverable";
            default -> turnState.toLowerCase(java.util.Locale.ROOT);
        };
    }

    @Override
    public List<JobRun> runs(String id, int limit) {
        return tx.read("job " + id, c -> c.list("SELECT " + RUN_COLUMNS
                + " FROM schedule_runs WHERE job_id = ? ORDER BY scheduled_at DESC LIMIT ?", JdbcScheduleStore::run, id, limit));
    }

    @Override
    public int prune(Instant before) {
        return tx.write("finished occurrences", c -> c.update("DELETE FROM schedule_runs WHERE state = 'DONE' AND updated_at < ?",
                Micros.of(before)));
    }

    // ---- rows -----------------------------------------------------------------------------------

    private static Object[] jobRow(Job j) {
        return new Object[] {j.id(), j.prompt(), j.schedule().text(), j.schedule().zone().getId(), Micros.of(anchor(j)),
                Json.source(j.source()), j.misfire().code(), j.catchUpWindow().toSeconds(), j.enabled() ? 1 : 0, j.definedBy().code(),
                j.createdBy(), Micros.of(j.createdAt()), Micros.of(j.updatedAt()), Micros.ofNullable(j.nextRunAt()),
                Micros.ofNullable(j.lastRunAt()), j.lastOutcome(), Micros.ofNullable(j.lastOutcomeAt()), j.model(), tools(j)};
    }

    /** The tool list as a JSON array, or null when the job sets none ({@code []} is "no tools"). */
    private static String tools(Job j) {
        return j.tools() == null ? null : Json.strings(j.tools());
    }

    /** What 'every' counts from; for other schedules the creation time (kept for the record). */
    private static Instant anchor(Job j) {
        return j.schedule() instanceof Schedule.Every e ? e.anchor() : j.createdAt();
    }

    private static Object[] runRow(JobRun r) {
        return new Object[] {r.jobId(), Micros.of(r.scheduledAt()), r.kind().code(), r.state().name(), r.platform().id(), r.messageId(),
                r.outcome(), Micros.of(r.claimedAt()), Micros.of(r.updatedAt())};
    }

    /** A job row, decoded; {@link RowDecodeException} naming the column when it holds what no job can. */
    static Job job(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        String text = rs.getString("schedule");
        String zoneText = rs.getString("time_zone");
        Instant anchor = Micros.column(rs, "anchor_at");
        ZoneId zone = RowDecodeException.decoding("time_zone", zoneText, () -> ZoneId.of(zoneText));
        Schedule schedule = RowDecodeException.decoding("schedule", text, () -> Schedule.stored(text, zone, anchor));
        String misfire = rs.getString("misfire");
        String definer = rs.getString("defined_by");
        String toolsText = rs.getString("tools");
        List<String> tools = toolsText == null ? null : RowDecodeException.decoding("tools", toolsText, () -> Json.strings(toolsText));
        String model = rs.getString("model");
        return RowDecodeException.decoding("job " + id, id, () -> {
            try {
                return new Job(id, rs.getString("prompt"), schedule, Json.source(rs.getString("source"), "source"), Misfire.of(misfire),
                        Duration.ofSeconds(rs.getLong("catch_up_seconds")), rs.getInt("enabled") == 1, Definer.of(definer),
                        rs.getString("created_by"), Micros.column(rs, "created_at"), Micros.column(rs, "updated_at"),
                        Micros.column(rs, "next_run_at"), Micros.column(rs, "last_run_at"), rs.getString("last_outcome"),
                        Micros.column(rs, "last_outcome_at"), model, tools);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static String idOf(ResultSet rs) {
        try {
            return "schedule_jobs " + rs.getString("id");
        } catch (SQLException e) {
            return "schedule_jobs (id unreadable)";
        }
    }

    static JobRun run(ResultSet rs) throws SQLException {
        String kind = rs.getString("kind");
        String state = rs.getString("state");
        String platform = rs.getString("platform");
        return RowDecodeException.decoding("schedule_runs", rs.getString("job_id"), () -> {
            try {
                return new JobRun(rs.getString("job_id"), Micros.column(rs, "scheduled_at"),
                        JobRun.Kind.valueOf(kind.toUpperCase(java.util.Locale.ROOT)), JobRun.State.valueOf(state), Platform.of(platform),
                        rs.getString("message_id"), rs.getString("outcome"), Micros.column(rs, "claimed_at"), Micros.column(rs, "updated_at"));
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
