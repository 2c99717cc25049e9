package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.herald.agent.skill.Skills;
import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Start-up reads {@code $HERALD_HOME/skills}: an invalid skill is a warning naming its file; the writable switch is read. */
class WiringSkillsTest {
    @TempDir
    Path home;

    @Test
    void start_warnsAboutAnInvalidSkillByFile_andListsTheValidOnes() throws Exception {
        Files.writeString(home.resolve("config.yaml"), "platforms:\n  api_server: {enabled: false}\nagent:\n  skills_writable: true\n");
        Files.createDirectories(home.resolve("skills/good"));
        Files.writeString(home.resolve("skills/good/SKILL.md"), "---\nname: good\ndescription: Does good things.\n---\nDo good.\n");
        Files.createDirectories(home.resolve("skills/bad"));
        Path bad = Files.writeString(home.resolve("skills/bad/SKILL.md"), "---\nname: bad\n---\nno description\n");
        HeraldConfig config = new ConfigLoader(Map.of()).load(home.resolve("config.yaml"), true, home).config();
        assertThat(config.agent().skillsWritable()).isTrue();
        Logger logger = (Logger) LoggerFactory.getLogger(Skills.class);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        logger.addAppender(logs);

        try (Wiring w = Wiring.build(config, home, true, Clock.systemUTC())) {
            assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("skills - " + bad.toAbsolutePath() + " skipped: its front matter has no description:");
            assertThat(logs.list).extracting(ILoggingEvent::getFormattedMessage).contains("skills - 1 skill(s) in "
                    + home.resolve("skills").toAbsolutePath() + " (the agent may add and change them): good");
        } finally {
            logger.detachAppender(logs);
        }
    }
}
