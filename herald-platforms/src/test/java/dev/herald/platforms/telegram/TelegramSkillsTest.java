package dev.herald.platforms.telegram;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.skill.SkillCommand;
import dev.herald.agent.skill.Skills;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /skills} and {@code /<skill name> request} as a Telegram user sees them, through the Bot API fake, the real
 * adapter, gateway and SQLite store: the list, a skill run as a turn whose message carries the skill and the request,
 * a skill added on disk while running, a skill named like a command never shadowing it, and an unknown name.
 */
class TelegramSkillsTest {
    private static final String TOKEN = "4545:fake-secret-token";
    private static final long USER = 100;

    @TempDir
    Path home;
    private final FakeBotApi fake = new FakeBotApi(TOKEN);
    @RegisterExtension
    final GatewayFixture h = new GatewayFixture(clock -> new TelegramAdapter(TelegramSettings.of(fake.apiBase(), TOKEN, false),
            new TelegramSettings.Timing(Duration.ofSeconds(1), Duration.ofMillis(20), Duration.ofMillis(40), Duration.ofMillis(50),
                    Duration.ofMillis(300)), clock)).allow(Long.toString(USER)).closing(fake);
    private SkillCommand command;

    @BeforeEach
    void skills() throws IOException {
        skill("pdf-report", "Turns notes into a PDF report. Use when asked for a report.", "1. Read the notes.\n2. Fill template.md.");
        skill("status", "A skill that shares a command's name.", "never run by /status");
        command = new SkillCommand(new Skills(home.resolve("skills"), false));
        h.with(b -> b.command(command.attach(event -> h.gateway.accept(event))));
    }

    private void skill(String name, String description, String body) throws IOException {
        Path dir = Files.createDirectories(home.resolve("skills").resolve(name));
        Files.writeString(dir.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body + "\n");
    }

    private List<String> texts() {
        return fake.calls("sendMessage").stream().map(c -> c.body().path("text").asText().replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&amp;", "&")).toList();
    }

    private String say(String text) {
        int before = texts().size();
        fake.userSays(USER, text);
        await().atMost(WAIT).until(() -> texts().size() > before);
        return texts().get(before);
    }

    @Test
    void skills_listsNameAndDescription_andHelpMentionsThem() {
        h.start();

        assertThat(say("/skills")).isEqualTo("Skills:\n/pdf-report - Turns notes into a PDF report. Use when asked for a report.\n"
                + "/status - A skill that shares a command's name.\nRun one with /<name> and what you want; the agent also uses them by itself.");
        assertThat(say("/help")).contains("/skills - the agent's skills; /<skill name> [request] runs one");
    }

    @Test
    void skillName_withArgs_runsATurnWhoseMessageCarriesTheSkillAndTheRequest() {
        h.start();
        h.agent.reply("Here is your report.");

        assertThat(say("/pdf-report the Q3 numbers")).isEqualTo("Here is your report.");

        assertThat(h.agent.calls()).hasSize(1);
        String message = h.agent.calls().getFirst().userMessage();
        assertThat(message).startsWith("Use the skill \"pdf-report\" (Turns notes into a PDF report. Use when asked for a report.) for this.")
                .contains("<skill name=\"pdf-report\">\n1. Read the notes.\n2. Fill template.md.\n</skill>")
                .endsWith("Request: the Q3 numbers");
    }

    @Test
    void aSkillAddedOnDiskWhileRunning_runsWithoutARestart_whileUnknownNamesAndCommandNamesAreNotSkills() throws IOException {
        h.start();
        assertThat(say("/haiku")).isEqualTo("Unknown command /haiku. Send /help for the list.");

        skill("haiku", "Writes a haiku.", "Five, seven, five.");
        h.agent.reply("An old silent pond");
        assertThat(say("/haiku")).isEqualTo("An old silent pond");
        assertThat(h.agent.calls().getLast().userMessage()).contains("Five, seven, five.")
                .endsWith("Request: none given; do what the skill describes.");

        assertThat(say("/status")).startsWith("Session: ").doesNotContain("never run");
        assertThat(say("/nope please")).isEqualTo("Unknown command /nope. Send /help for the list.");
        assertThat(h.agent.calls()).hasSize(1);
    }

    @Test
    void theSameSkillMessageDeliveredAgain_afterARestart_runsOnce() {
        h.start();
        h.agent.reply("Report one.");
        int before = texts().size();
        var update = fake.userSays(USER, "/pdf-report the Q3 numbers");
        await().atMost(WAIT).until(() -> texts().size() > before);
        assertThat(texts().get(before)).isEqualTo("Report one.");

        h.crash();
        h.start();
        fake.resendAsNewUpdate(update);
        fake.redeliver(update);
        h.agent.reply("pong");
        assertThat(say("ping")).isEqualTo("pong");

        assertThat(h.agent.calls()).hasSize(1); // the fresh process's agent saw only "ping"
        assertThat(h.agent.calls().getFirst().userMessage()).isEqualTo("ping");
        assertThat(texts()).filteredOn(t -> t.startsWith("Report")).hasSize(1);
    }
}
