package dev.herald.app.runtime;

import dev.herald.core.config.ConfigException;
import dev.herald.core.schedule.ScheduleJobConfig;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.SchedulesConfig;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSet;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.JobChoices;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.schedule.SchedulePlatform;
import dev.herald.core.schedule.ScheduleStore;
import dev.herald.core.schedule.Targets;
import dev.herald.core.session.SessionSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts {@code schedules.jobs} into the store at start: the configuration wins for its ids (a job changed in
 * the file is redefined; one unchanged keeps its next run, so a restart neither repeats nor skips a run),
 * and a configured job no longer in the file is deleted. Jobs made in chats are left alone.
 */
final class ScheduleWiring {
    private static final Logger log = LoggerFactory.getLogger("schedule");

    private ScheduleWiring() {
    }

    /**
     * @param running the platforms this Herald runs (a job's target must be one of them, or the log)
     * @throws ConfigException when a job delivers to a platform that is not enabled
     */
    static void reconcile(SchedulesConfig config, ScheduleStore store, Clock clock, List<PlatformAdapter> running) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        ZoneId defaultZone = config.zone();
        int changed = 0;
        for (Map.Entry<String, ScheduleJobConfig> e : config.jobs().entrySet()) {
            Job wanted = job(e.getKey(), e.getValue(), defaultZone, now, running);
            Job was = store.find(wanted.id()).orElse(null);
            Job stored = store.putConfigured(wanted);
            if (was == null || !was.schedule().equals(stored.schedule()) || was.definedBy() != Definer.CONFIG) {
                changed++;
            }
            if (stored.enabled() && stored.nextRunAt() == null) {
                log.warn("schedule - configured job {} has no time left to run ({}); remove it from schedules.jobs", stored.id(),
                        stored.schedule().text());
            }
        }
        int removed = 0;
        for (Job j : store.list()) {
            if (j.definedBy() == Definer.CONFIG && !config.jobs().containsKey(j.id())) {
                store.delete(j.id());
                removed++;
                log.info("schedule - configured job {} is no longer in schedules.jobs; deleted", j.id());
            }
        }
        if (!config.jobs().isEmpty() || removed > 0) {
            log.info("schedule - {} configured job(s) in the store ({} new or changed, {} removed); default time zone {}",
                    config.jobs().size(), changed, removed, defaultZone.getId());
        }
    }

    private static Job job(String id, ScheduleJobConfig c, ZoneId defaultZone, Instant now, List<PlatformAdapter> running) {
        ZoneId zone = c.timeZone() == null || c.timeZone().isBlank() ? defaultZone : Schedule.zone(c.timeZone());
        Schedule schedule = Schedule.parse(c.schedule(), zone, now);
        SessionSource source = Targets.parse(c.deliver(), id, c.user());
        Platform p = source.platform();
        if (!p.equals(SchedulePlatform.PLATFORM) && running.stream().noneMatch(a -> a.platform().equals(p))) {
            throw new ConfigException("config - schedules.jobs." + id + ".deliver names platform '" + p + "', which is not enabled; "
                    + "enable platforms." + p + " or deliver to log");
        }
        Misfire misfire = c.misfire();
        return new Job(id, c.prompt(), schedule, source, misfire, Duration.ofSeconds(c.catchUpWindowSeconds()), c.enabled(), Definer.CONFIG,
                "config", now, now, schedule.nextAfter(now).orElse(null), null, null, null, c.model(), c.tools());
    }

    /**
     * What a job made in a chat may name: the configured model profiles, the tools there are, and of those the ones a
     * platform's turns get ({@code agent.platform_tools}). {@code tools} is read at each call: the registry is built
     * after the schedules (its {@code schedule} tool needs them).
     */
    static JobChoices choices(List<ProfileAgent.Profile> profiles, Supplier<ToolRegistry> tools) {
        List<String> names = profiles.stream().map(ProfileAgent.Profile::name).toList();
        return new JobChoices() {
            @Override
            public List<String> profiles() {
                return names;
            }

            @Override
            public List<String> tools() {
                ToolRegistry r = tools.get();
                return r == null ? List.of() : r.names();
            }

            @Override
            public List<String> allowedOn(Platform platform, List<String> wanted) {
                ToolRegistry r = tools.get();
                if (r == null) {
                    return List.of();
                }
                ToolSet offered = r.forPlatform(platform.id());
                return wanted.stream().filter(n -> offered.find(n) != null).toList();
            }
        };
    }
}
