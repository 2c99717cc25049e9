package dev.herald.core.schedule;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.time.ZoneId;
import java.util.Map;

/**
 * {@code schedules:} scheduled tasks. Jobs are also made from chats (/schedule, the agent's {@code schedule}
 * tool); all live in the database. The ones here are reconciled at every start: the configuration wins for
 * their ids, and a configured job removed from this section is deleted.
 */
public record SchedulesConfig(
        @Doc("time zone of jobs that name none, chat-made ones included (an IANA name such as Europe/Berlin); not set = the system's zone")
        String timeZone,
        @Doc("jobs by id (1-32 lower-case letters, digits, '_' or '-')")
        Map<String, ScheduleJobConfig> jobs) implements Validated {

    public SchedulesConfig {
        jobs = jobs == null ? Map.of() : Map.copyOf(jobs);
    }

    public static SchedulesConfig defaults() {
        return new SchedulesConfig(null, Map.of());
    }

    /** The zone of jobs that name none. */
    public ZoneId zone() {
        return timeZone == null || timeZone.isBlank() ? ZoneId.systemDefault() : Schedule.zone(timeZone);
    }

    @Override
    public void validate(ConfigChecks check) {
        if (timeZone != null && !timeZone.isBlank()) {
            boolean ok;
            try {
                Schedule.zone(timeZone);
                ok = true;
            } catch (IllegalArgumentException e) {
                ok = false;
            }
            check.require(ok, "time_zone", "is not a time zone: \"" + timeZone + "\"; use an IANA name such as Europe/Berlin or UTC");
        }
        for (String id : jobs.keySet()) {
            check.require(Job.ID.matcher(id).matches(), "jobs." + id, "is not a valid job id: use 1-32 lower-case letters, digits, '_' or '-'");
        }
    }
}
