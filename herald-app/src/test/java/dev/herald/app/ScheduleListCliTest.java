package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.Platform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionSource;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald schedule list} reads the jobs of a home's store. */
class ScheduleListCliTest {
    @TempDir
    Path home;

    private String run(int expectedExit) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.run(new CliEnvironment(Map.of(), home, new PrintWriter(out, true), new PrintWriter(err, true)), "schedule", "list",
                "--home", home.toString());
        assertThat(rc).as(err.toString()).isEqualTo(expectedExit);
        return out + err.toString();
    }

    @Test
    void list_printsEachJobWithItsNextRunTargetAndOwner() {
        MutableClock clock = MutableClock.atNoon();
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), clock)) {
            new Schedules(s.schedules(), clock, ZoneId.of("Europe/Berlin"), p -> true).create(Schedules.Draft.of("0 9 * * 1-5", "Summarise my inbox"),
                    SessionSource.dm(Platform.of("telegram"), "123", "123"), false, Definer.CHAT);
        }

        String out = run(0);

        assertThat(out).containsPattern("[a-z0-9]{6} \u00b7 0 9 \\* \\* 1-5 \u00b7 next 2026-04-20 09:00 Europe/Berlin \u00b7 last not run yet "
                + "\u00b7 Summarise my inbox \u00b7 telegram:123 as 123 \u00b7 chat").contains("schedule - 1 job(s)");
    }

    @Test
    void list_showsAJobsModelAndTools() {
        MutableClock clock = MutableClock.atNoon();
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), clock)) {
            Job job = new Schedules(s.schedules(), clock, ZoneId.of("UTC"), p -> true).create(Schedules.Draft.of("@daily", "Digest"),
                    SessionSource.dm(Platform.of("telegram"), "123", "123"), false, Definer.CHAT);
            s.schedules().delete(job.id());
            s.schedules().create(job.withOptions("fast", List.of("read_file", "http_get")));
        }

        assertThat(run(0)).contains("\u00b7 last not run yet \u00b7 model fast \u00b7 tools read_file, http_get \u00b7 Digest");
    }

    @Test
    void list_ofAStoreBeforeJobOptions_stillListsItsJobs() throws Exception {
        MutableClock clock = MutableClock.atNoon();
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), clock)) {
            new Schedules(s.schedules(), clock, ZoneId.of("UTC"), p -> true).create(Schedules.Draft.of("@daily", "Digest"),
                    SessionSource.dm(Platform.of("telegram"), "123", "123"), false, Definer.CHAT);
        }
        // the schema of the release before (SQLite V10): the jobs' model and tools columns do not exist yet
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("herald.db"));
                Statement st = c.createStatement()) {
            st.execute("ALTER TABLE schedule_jobs DROP COLUMN model");
            st.execute("ALTER TABLE schedule_jobs DROP COLUMN tools");
        }

        assertThat(run(0)).contains("\u00b7 Digest \u00b7 telegram:123 as 123").contains("schedule - 1 job(s)");
    }

    @Test
    void list_ofAStoreWithoutJobs_saysHowToMakeOne() {
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), MutableClock.atNoon())) {
            s.describe();
        }

        assertThat(run(0)).contains("no scheduled jobs (define them under schedules.jobs in config.yaml, or with /schedule add in a chat)");
    }

    @Test
    void list_withoutAStore_failsNamingTheFile() {
        assertThat(run(1)).contains("herald.db does not exist");
    }
}
