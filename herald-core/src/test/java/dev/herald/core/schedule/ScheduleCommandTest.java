package dev.herald.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How /schedule add reads its arguments. */
class ScheduleCommandTest {

    @Test
    void quotedCron_thenThePrompt() {
        Schedules.Draft d = ScheduleCommand.parse("\"0 9 * * 1-5\" Summarise my inbox");
        assertThat(d.schedule()).isEqualTo("0 9 * * 1-5");
        assertThat(d.prompt()).isEqualTo("Summarise my inbox");
    }

    @Test
    void unquotedCron_takesFiveFields() {
        Schedules.Draft d = ScheduleCommand.parse("*/15 8-18 * * mon-fri check the build");
        assertThat(d.schedule()).isEqualTo("*/15 8-18 * * mon-fri");
        assertThat(d.prompt()).isEqualTo("check the build");
    }

    @Test
    void everyInAndAt_takeTheirWords() {
        assertThat(ScheduleCommand.parse("every 30m ping").schedule()).isEqualTo("every 30m");
        assertThat(ScheduleCommand.parse("in 20m stretch").schedule()).isEqualTo("in 20m");
        assertThat(ScheduleCommand.parse("at 09:00 coffee").schedule()).isEqualTo("at 09:00");
        Schedules.Draft at = ScheduleCommand.parse("at 2026-12-24 09:00 presents");
        assertThat(at.schedule()).isEqualTo("at 2026-12-24 09:00");
        assertThat(at.prompt()).isEqualTo("presents");
        assertThat(ScheduleCommand.parse("@daily summary").schedule()).isEqualTo("@daily");
    }

    @Test
    void optionsBeforeThePrompt() {
        Schedules.Draft d = ScheduleCommand.parse("\u201c0 9 * * *\u201d tz=Europe/Berlin misfire=skip to=log the report");
        assertThat(d.zone()).contains("Europe/Berlin");
        assertThat(d.misfire()).contains(Misfire.SKIP);
        assertThat(d.target()).contains("log");
        assertThat(d.prompt()).isEqualTo("the report");
    }

    @Test
    void modelAndTools_areOptionsToo_andToolsNoneIsAnEmptyList() {
        Schedules.Draft d = ScheduleCommand.parse("every 1h model=fast tools=read_file,http_get check the feeds");
        assertThat(d.model()).contains("fast");
        assertThat(d.tools()).contains(java.util.List.of("read_file", "http_get"));
        assertThat(d.prompt()).isEqualTo("check the feeds");

        assertThat(ScheduleCommand.parse("every 1h tools=none just talk").tools()).contains(java.util.List.of());
        assertThat(ScheduleCommand.parse("every 1h just talk").tools()).as("not set: the platform's tools").isEmpty();
    }

    @Test
    void noSchedule_explainsTheForms() {
        assertThatThrownBy(() -> ScheduleCommand.parse("remind me")).isInstanceOf(ScheduleException.class)
                .hasMessageContaining("does not start a schedule").hasMessageContaining("/schedule add \"0 9 * * 1-5\"");
        assertThatThrownBy(() -> ScheduleCommand.parse("\"0 9 * * *")).hasMessageContaining("closing quote");
    }
}
