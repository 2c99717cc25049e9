package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigException;
import dev.herald.core.schedule.ScheduleJobConfig;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.SchedulesConfig;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionSource;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configured jobs reach the store at every start: the configuration wins for its ids, chat-made jobs are left alone. */
class ScheduleWiringTest {
    @TempDir
    Path dir;
    final MutableClock clock = MutableClock.atNoon();
    final List<PlatformAdapter> running = List.of(new LoopbackPlatform(Platform.of("telegram"),
            dev.herald.core.platform.Capabilities.basicChat(), clock));
    SqliteStorage storage;

    @BeforeEach
    void open() {
        storage = SqliteStorage.open(dir.resolve("herald.db"), clock);
    }

    @AfterEach
    void close() {
        storage.close();
    }

    private static SchedulesConfig jobs(Map<String, ScheduleJobConfig> jobs) {
        return new SchedulesConfig("UTC", jobs);
    }

    private static ScheduleJobConfig job(String schedule, String deliver) {
        return new ScheduleJobConfig(schedule, "post the standup", deliver, null, null, Misfire.RUN_ONCE, 3600, true);
    }

    @Test
    void aRestartWithTheSameJob_keepsItsNextRun_soAMissedRunIsStillOwed() {
        ScheduleWiring.reconcile(jobs(Map.of("standup", job("0 13 * * *", "telegram:100"))), storage.schedules(), clock, running);
        Instant due = storage.schedules().find("standup").orElseThrow().nextRunAt();
        clock.advance(Duration.ofHours(2)); // down over 13:00

        ScheduleWiring.reconcile(jobs(Map.of("standup", job("0 13 * * *", "telegram:100"))), storage.schedules(), clock, running);

        Job j = storage.schedules().find("standup").orElseThrow();
        assertThat(j.nextRunAt()).isEqualTo(due).isEqualTo(Instant.parse("2026-04-18T13:00:00Z"));
        assertThat(j.definedBy()).isEqualTo(Definer.CONFIG);
        assertThat(j.source().userId()).isEqualTo("100");
        assertThat(j.target()).isEqualTo("telegram:100");
    }

    @Test
    void aJobRemovedFromTheFile_isDeleted_andChatJobsStay() {
        ScheduleWiring.reconcile(jobs(Map.of("standup", job("0 13 * * *", "log"))), storage.schedules(), clock, running);
        Schedules schedules = new Schedules(storage.schedules(), clock, ZoneId.of("UTC"), p -> true);
        Job mine = schedules.create(Schedules.Draft.of("every 1h", "stretch"), SessionSource.dm(Platform.of("telegram"), "7", "7"), false,
                Definer.CHAT);

        ScheduleWiring.reconcile(jobs(Map.of()), storage.schedules(), clock, running);

        assertThat(storage.schedules().list()).extracting(Job::id).containsExactly(mine.id());
    }

    @Test
    void aJobForAPlatformThatIsNotEnabled_stopsTheStartNamingIt() {
        assertThatThrownBy(() -> ScheduleWiring.reconcile(jobs(Map.of("standup", job("0 13 * * *", "discord:42"))), storage.schedules(),
                clock, running)).isInstanceOf(ConfigException.class)
                .hasMessage("config - schedules.jobs.standup.deliver names platform 'discord', which is not enabled; enable "
                        + "platforms.discord or deliver to log");
        assertThat(storage.schedules().list()).isEmpty();
    }
}
