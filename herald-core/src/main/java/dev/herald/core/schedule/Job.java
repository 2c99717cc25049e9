package dev.herald.core.schedule;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A scheduled task: a prompt that runs as a turn when its schedule says so.
 *
 * <p>{@link #source} is where the turn runs and as whom: a chat (platform, chat, thread) and the user the
 * job runs as, exactly like an inbound message from that user in that chat. The turn therefore runs in
 * that chat's session, its answer is delivered there, and the gateway's admission checks that user at
 * every run (a user removed from the allowlist stops their jobs). A job whose answer only goes to the log
 * has a source on the internal platform {@link SchedulePlatform#PLATFORM} ({@code agent:main:schedule:dm:<job>}).
 *
 * @param id            a short id: a configured job's name, or a generated one ({@link JobIds})
 * @param prompt        what the agent is asked
 * @param schedule      when
 * @param source        where it runs and as whom
 * @param misfire       what to do about occurrences missed while Herald was down
 * @param catchUpWindow how late a catch-up run may still start ({@link Misfire#RUN_ONCE})
 * @param enabled       false while paused
 * @param definedBy     configuration, chat command or the agent's tool
 * @param createdBy     who made it, for people (a platform user, {@code config})
 * @param createdAt     when it was stored first
 * @param updatedAt     when it last changed (definition, pause, resume)
 * @param nextRunAt     the next time it is due; null when it has no more (a one-shot that ran)
 * @param lastRunAt     the scheduled time of the latest occurrence that was run or decided about, or null
 * @param lastOutcome   that occurrence's result ({@code ok}, {@code failed}, {@code refused}, {@code skipped}, ...), or null
 * @param lastOutcomeAt when that result was recorded, or null
 * @param model         the model profile its turns run on ({@code models:}), or null for its chat's (the default, or what
 *                      /model chose there)
 * @param tools         the tools its turns may use, or null for its platform's ({@code agent.platform_tools}); empty = no
 *                      tools. A job made in a chat gets at most its platform's tools; a configured job's list is the
 *                      operator's and is used as it is ({@link #toolAllowlist})
 */
public record Job(
        String id,
        String prompt,
        Schedule schedule,
        SessionSource source,
        Misfire misfire,
        Duration catchUpWindow,
        boolean enabled,
        Definer definedBy,
        String createdBy,
        Instant createdAt,
        Instant updatedAt,
        Instant nextRunAt,
        Instant lastRunAt,
        String lastOutcome,
        Instant lastOutcomeAt,
        String model,
        List<String> tools) {

    /** Ids: 1-32 lower-case letters, digits, '_' or '-' (they appear in commands, metrics labels and message ids). */
    public static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,31}");
    /** The longest prompt a job keeps. */
    public static final int MAX_PROMPT = 4_000;
    /** The default catch-up window. */
    public static final Duration DEFAULT_CATCH_UP = Duration.ofHours(1);

    public Job {
        Objects.requireNonNull(id, "id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("schedule - job id '" + id + "' is invalid: use 1-32 lower-case letters, digits, '_' or '-'");
        }
        Objects.requireNonNull(prompt, "prompt");
        if (prompt.isBlank()) {
            throw new IllegalArgumentException("schedule - job " + id + " has an empty prompt; say what the agent should do");
        }
        if (prompt.length() > MAX_PROMPT) {
            throw new IllegalArgumentException("schedule - job " + id + "'s prompt has " + prompt.length() + " characters; at most "
                    + MAX_PROMPT + " fit");
        }
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(misfire, "misfire");
        Objects.requireNonNull(catchUpWindow, "catchUpWindow");
        if (catchUpWindow.isNegative()) {
            throw new IllegalArgumentException("schedule - job " + id + "'s catch-up window is negative");
        }
        Objects.requireNonNull(definedBy, "definedBy");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        model = model == null || model.isBlank() ? null : model.strip();
        tools = tools == null ? null : List.copyOf(tools);
    }

    /** A job that runs with its chat's model and its platform's tools. */
    public Job(String id, String prompt, Schedule schedule, SessionSource source, Misfire misfire, Duration catchUpWindow, boolean enabled,
            Definer definedBy, String createdBy, Instant createdAt, Instant updatedAt, Instant nextRunAt, Instant lastRunAt,
            String lastOutcome, Instant lastOutcomeAt) {
        this(id, prompt, schedule, source, misfire, catchUpWindow, enabled, definedBy, createdBy, createdAt, updatedAt, nextRunAt,
                lastRunAt, lastOutcome, lastOutcomeAt, null, null);
    }

    /** Where the answer goes, as written in the configuration: {@code log} or {@code <platform>:<chat_id>[:<thread_id>]}. */
    public String target() {
        if (logOnly()) {
            return "log";
        }
        return source.platform() + ":" + source.chatId() + (source.threadId() == null ? "" : ":" + source.threadId());
    }

    /** Whether the answer only goes to the log. */
    public boolean logOnly() {
        return source.platform().equals(SchedulePlatform.PLATFORM);
    }

    public Platform platform() {
        return source.platform();
    }

    /** Whether it has a next run and is not paused. */
    public boolean active() {
        return enabled && nextRunAt != null;
    }

    /** "paused", "done" (no more runs) or "active". */
    public String status() {
        return !enabled ? "paused" : nextRunAt == null ? "done" : "active";
    }

    public Job withEnabled(boolean on, Instant next, Instant now) {
        return new Job(id, prompt, schedule, source, misfire, catchUpWindow, on, definedBy, createdBy, createdAt, now, next,
                lastRunAt, lastOutcome, lastOutcomeAt, model, tools);
    }

    /** The same job with a model profile and tool list (null: not set). */
    public Job withOptions(String profile, List<String> toolList) {
        return new Job(id, prompt, schedule, source, misfire, catchUpWindow, enabled, definedBy, createdBy, createdAt, updatedAt,
                nextRunAt, lastRunAt, lastOutcome, lastOutcomeAt, profile, toolList);
    }

    /**
     * The limit on its turns' tools, or null when it sets none: a configured job's list is used as it is, a chat-made
     * job's only within its platform's tools (checked again at every run, so narrowing {@code agent.platform_tools}
     * narrows the job too).
     */
    public TurnOptions.ToolAllowlist toolAllowlist() {
        return tools == null ? null : new TurnOptions.ToolAllowlist(tools, definedBy == Definer.CONFIG);
    }

    /** Whether it sets a model profile or a tool list (else its turns run as any turn of its chat). */
    public boolean hasOptions() {
        return model != null || tools != null;
    }
}
