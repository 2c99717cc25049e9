package dev.herald.core.schedule;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.time.Instant;
import java.time.ZoneId;

/** One entry of {@code schedules.jobs}: a prompt the agent runs on a schedule, answering in a chat or the log. */
public record ScheduleJobConfig(
        @Doc("when: a cron expression such as `0 9 * * 1-5` (minute hour day month weekday), `every 30m`, or `at 2026-12-24T09:00` (once)")
        String schedule,
        @Doc("what the agent is asked at each run")
        String prompt,
        @Doc("where it runs and answers: `log`, or `<platform>:<chat_id>[:<thread_id>]` of an enabled platform (that chat's session)")
        String deliver,
        @Doc("the platform user the job runs as, checked against the allowlist at every run; not set = the chat id (a direct chat's user)")
        String user,
        @Doc("time zone of this job's local times; not set = schedules.time_zone")
        String timeZone,
        @Doc("runs missed while Herald was down: one catch-up run, or none")
        Misfire misfire,
        @Doc("seconds after its time a missed run may still start (misfire run_once)")
        long catchUpWindowSeconds,
        @Doc("false = kept but paused")
        boolean enabled,
        @Doc("the model profile its runs use (`default` or a name under models:); not set = the chat's (its /model choice, else the default)")
        String model,
        @Doc("the only tools its runs may use, as in agent.tools (names, `<server>__*`, `mcp`); [] = none; not set = the target "
                + "platform's (agent.platform_tools). Used as written, even beyond the platform's list")
        java.util.List<String> tools) implements Validated {

    public ScheduleJobConfig {
        prompt = prompt == null ? "" : prompt.strip();
        deliver = deliver == null || deliver.isBlank() ? "log" : deliver.strip();
        misfire = misfire == null ? Misfire.RUN_ONCE : misfire;
        model = model == null || model.isBlank() ? null : model.strip();
        tools = tools == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(tools));
    }

    /** A job with its chat's model and its platform's tools. */
    public ScheduleJobConfig(String schedule, String prompt, String deliver, String user, String timeZone, Misfire misfire,
            long catchUpWindowSeconds, boolean enabled) {
        this(schedule, prompt, deliver, user, timeZone, misfire, catchUpWindowSeconds, enabled, null, null);
    }

    public static ScheduleJobConfig defaults() {
        return new ScheduleJobConfig(null, "", "log", null, null, Misfire.RUN_ONCE, 3600, true, null, null);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(schedule != null && !schedule.isBlank(), "schedule", "is required, e.g. schedule: \"0 9 * * 1-5\" or every 30m");
        check.require(!prompt.isEmpty(), "prompt", "is required: what the agent should do at each run");
        check.require(prompt.length() <= dev.herald.core.schedule.Job.MAX_PROMPT, "prompt",
                "has " + prompt.length() + " characters; at most " + dev.herald.core.schedule.Job.MAX_PROMPT + " fit");
        check.require(catchUpWindowSeconds >= 0, "catch_up_window_seconds", "must be 0 or more, was " + catchUpWindowSeconds);
        ZoneId zone = ZoneId.of("UTC");
        if (timeZone != null && !timeZone.isBlank()) {
            check.require(valid(() -> Schedule.zone(timeZone)), "time_zone", "is not a time zone: \"" + timeZone
                    + "\"; use an IANA name such as Europe/Berlin or UTC");
            zone = Schedule.zone(timeZone);
        }
        ZoneId z = zone;
        String problem = problem(() -> Schedule.parse(schedule, z, Instant.now()));
        check.require(problem == null, "schedule", "cannot be read: " + problem);
        String target = problem(() -> Targets.parse(deliver, "job", user));
        check.require(target == null, "deliver", "must be log or <platform>:<chat_id>[:<thread_id>], was \"" + deliver + "\"");
    }

    private static boolean valid(Runnable r) {
        return problem(() -> {
            r.run();
            return null;
        }) == null;
    }

    private static String problem(java.util.function.Supplier<?> s) {
        try {
            s.get();
            return null;
        } catch (IllegalArgumentException e) {
            String m = String.valueOf(e.getMessage());
            return m.startsWith("cron - ") || m.startsWith("schedule - ") ? m.substring(m.indexOf(" - ") + 3) : m;
        }
    }
}
