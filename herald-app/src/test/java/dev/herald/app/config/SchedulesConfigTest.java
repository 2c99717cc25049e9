package dev.herald.app.config;

import dev.herald.core.schedule.ScheduleJobConfig;
import dev.herald.core.schedule.Misfire;


import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code schedules:} binds with defaults, and a job that cannot run stops the load with one line naming it. */
class SchedulesConfigTest {
    @TempDir
    Path home;

    @Test
    void aJob_bindsWithItsDefaults() {
        HeraldConfig c = new ConfigFixture(home).config("""
                schedules:
                  time_zone: Europe/Berlin
                  jobs:
                    standup:
                      schedule: "0 9 * * 1-5"
                      prompt: Summarise my inbox
                      deliver: telegram:123456
                """);

        assertThat(c.schedules().zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        ScheduleJobConfig job = c.schedules().jobs().get("standup");
        assertThat(job.deliver()).isEqualTo("telegram:123456");
        assertThat(job.misfire()).isEqualTo(Misfire.RUN_ONCE);
        assertThat(job.catchUpWindowSeconds()).isEqualTo(3600);
        assertThat(job.enabled()).isTrue();
        assertThat(job.user()).isNull();
    }

    @Test
    void badJobs_stopTheLoadNamingTheKey() {
        ConfigFixture f = new ConfigFixture(home);
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: \"61 9 * * *\"\n      prompt: x\n"))
                .contains("line 4: schedules.jobs.a.schedule cannot be read: the minute value 61 is outside 0-59");
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: every 10s\n      prompt: x\n"))
                .contains("schedules.jobs.a.schedule cannot be read: every 10s is too often; the shortest is 1m");
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: \"@daily\"\n"))
                .contains("schedules.jobs.a.prompt is required");
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: \"@daily\"\n      prompt: x\n      deliver: telegram\n"))
                .contains("schedules.jobs.a.deliver must be log or <platform>:<chat_id>[:<thread_id>], was \"telegram\"");
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: \"@daily\"\n      prompt: x\n      time_zone: Mars/Base\n"))
                .contains("schedules.jobs.a.time_zone is not a time zone: \"Mars/Base\"");
        assertThat(f.error("schedules:\n  jobs:\n    Bad Id:\n      schedule: \"@daily\"\n      prompt: x\n"))
                .contains("schedules.jobs.Bad Id is not a valid job id");
        assertThat(f.error("schedules:\n  time_zone: Nowhere\n")).contains("schedules.time_zone is not a time zone: \"Nowhere\"");
        assertThat(f.error("schedules:\n  jobs:\n    a:\n      schedule: \"@daily\"\n      prompt: x\n      misfire: later\n"))
                .contains("schedules.jobs.a.misfire").contains("run_once, skip");
    }

    @Test
    void aJobsModelAndTools_bind_andNotSetMeansNone() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:9/v1
                models:
                  fast:
                    name: small
                schedules:
                  jobs:
                    digest:
                      schedule: "@daily"
                      prompt: Summarise the day
                      model: fast
                      tools: [read_file, http_get]
                    quiet:
                      schedule: "@daily"
                      prompt: Just talk
                      tools: []
                    plain:
                      schedule: "@daily"
                      prompt: As always
                """);

        assertThat(c.schedules().jobs().get("digest").model()).isEqualTo("fast");
        assertThat(c.schedules().jobs().get("digest").tools()).containsExactly("read_file", "http_get");
        assertThat(c.schedules().jobs().get("quiet").tools()).as("an empty list is no tools").isEmpty();
        assertThat(c.schedules().jobs().get("plain").tools()).as("not set is the platform's tools").isNull();
        assertThat(c.schedules().jobs().get("plain").model()).isNull();
    }

    @Test
    void aJobNamingAnUnknownProfileOrTool_stopsTheLoadNamingTheKey() {
        ConfigFixture f = new ConfigFixture(home);
        String job = "schedules:\n  jobs:\n    digest:\n      schedule: \"@daily\"\n      prompt: x\n";

        assertThat(f.error("models:\n  fast:\n    base_url: http://127.0.0.1:9/v1\n    name: small\n" + job + "      model: fsat\n"))
                .contains("schedules.jobs.digest.model is \"fsat\", which names no model profile (did you mean \"fast\"?)")
                .contains("the profiles are default, fast");
        assertThat(f.error(job + "      tools: [read_file, shel]\n"))
                .contains("schedules.jobs.digest.tools[1] is \"shel\", which names no tool (did you mean \"shell\"?)");
    }
}
