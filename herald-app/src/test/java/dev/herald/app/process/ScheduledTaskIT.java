package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.RecordedRequest;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import dev.herald.store.sqlite.SqliteStorage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configured one-minute job ({@code * * * * *}) of the real {@code herald run}, answering in a Telegram chat (the
 * npm Bot API emulator), through a kill -9 during its run (after it recorded a tool call) and a stop across its next
 * due time: the killed run is resumed as the scheduled task, its result reaches the chat once, and its record says
 * so. Bounded by the minute: about two minutes at most.
 */
class ScheduledTaskIT {
    static final String TOKEN = "4242:schedule-emulator-token";
    static final long CHAT = 100;
    static final String NOTE = "[System note: The scheduled task below was interrupted by a gateway interruption";
    static final Pattern DUE = Pattern.compile("due (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}) UTC\\]");
    static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

    @TempDir
    Path home;
    FakeModelServer model;
    HeraldProcess herald;
    TelegramEmulator telegram;

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        if (model != null) {
            model.close();
        }
        if (telegram != null) {
            telegram.close();
        }
    }

    @Test
    void aOneMinuteJob_deliversToTelegramExactlyOnce_acrossAKillDuringItsRunAndAStopAcrossItsNextTime() throws Exception {
        telegram = TelegramEmulator.start();
        model = FakeModelServer.start();
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 0.5", """
                schedules:
                  time_zone: UTC
                  jobs:
                    standup:
                      schedule: "* * * * *"
                      prompt: post the standup
                      deliver: telegram:100
                """);
        herald.rewriteConfig("agent:\n  tools: []\n", "agent:\n  tools: [todo]\n");
        herald.rewriteConfig("platforms:\n", "platforms:\n  telegram:\n    enabled: true\n    token: \"" + TOKEN + "\"\n    api_base: "
                + telegram.apiBase() + "\n    allowed_users: [\"100\"]\n");

        // 1. the first run notes a to-do (a tool call and its result are recorded), is held at the model, and the gateway
        // is killed during it
        model.enqueue(Reply.text("").withToolCalls(Reply.ToolCall.of("todo", "{\"action\":\"add\",\"text\":\"collect updates\"}")));
        Hold held = model.enqueueHeld(Reply.text("never sent"));
        herald.start();
        long first = herald.awaitReady();
        String prompt = held.awaitArrived(Duration.ofSeconds(90)).lastUserMessage();
        assertThat(prompt).startsWith("[Scheduled task standup (* * * * *), due ").endsWith("] post the standup");
        String firstMinute = due(prompt);
        model.enqueue(Reply.text("standup posted"));
        herald.killGateway();
        herald.awaitReady(first);

        // the restarted gateway resumes the cut-off run as the scheduled task; its answer reaches the chat once
        telegram.awaitBot(TOKEN, CHAT, m -> m.stream().anyMatch(x -> x.text().equals("standup posted")), Duration.ofSeconds(60));

        // 2. a stop across the next due time: the restarted Herald runs that occurrence once
        herald.terminate();
        assertThat(herald.awaitExit(Duration.ofSeconds(60))).isZero();
        String next = nextRun();
        Instant due = LocalDateTime.parse(next, MINUTE).toInstant(ZoneOffset.UTC);
        while (Instant.now().isBefore(due.plusSeconds(2))) {
            Thread.sleep(200);
        }
        herald.start();
        herald.awaitReady();
        String caughtUp = "echo: [Scheduled task standup (* * * * *), due " + next + " UTC] post the standup";
        telegram.awaitBot(TOKEN, CHAT, m -> m.stream().anyMatch(x -> x.text().equals(caughtUp)), Duration.ofSeconds(60));
        Thread.sleep(3_000); // a second delivery of anything would arrive within this

        List<String> sent = telegram.botMessages(TOKEN, CHAT).stream().map(TelegramEmulator.BotMessage::text).toList();
        assertThat(sent).as("every message once").doesNotHaveDuplicates();
        assertThat(sent).filteredOn(t -> t.equals("standup posted")).hasSize(1);
        assertThat(sent).filteredOn(t -> t.equals(caughtUp)).hasSize(1);
        List<RecordedRequest> asked = model.requests();
        assertThat(asked).filteredOn(r -> r.lastUserMessage().equals(prompt)).as("the first run's prompt, asked before and after its tool call")
                .hasSize(2);
        assertThat(asked).filteredOn(r -> r.lastUserMessage().startsWith(NOTE)).as("resumed once, as the task").singleElement()
                .satisfies(r -> assertThat(r.lastUserMessage()).endsWith("]\n\n" + prompt).doesNotContain("session was restored"));
        // a run's first request ends with its prompt (the requests after a tool call end with the tool's result)
        Map<String, Long> perMinute = asked.stream().filter(r -> r.messages().get(r.messages().size() - 1).role().equals("user"))
                .map(r -> r.lastUserMessage()).filter(m -> m.startsWith("[Scheduled task"))
                .collect(Collectors.groupingBy(ScheduledTaskIT::due, Collectors.counting()));
        assertThat(perMinute).as("each minute run at most once").allSatisfy((minute, n) -> assertThat(n).isEqualTo(1L));
        assertThat(perMinute).containsKeys(firstMinute, next);

        herald.terminate();
        assertThat(herald.awaitExit(Duration.ofSeconds(60))).isZero();
        try (SqliteStorage store = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            Instant firstAt = LocalDateTime.parse(firstMinute, MINUTE).toInstant(ZoneOffset.UTC);
            assertThat(store.schedules().runs("standup", 100)).filteredOn(r -> r.scheduledAt().equals(firstAt))
                    .as("the killed run's record shows how it ended").singleElement()
                    .satisfies(r -> assertThat(r.outcome()).isEqualTo("resumed, ok"));
        }
    }

    /** The job's next run as {@code herald schedule list} prints it (the gateway is stopped). */
    private String nextRun() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = Main.run(new CliEnvironment(Map.of(), home, new PrintWriter(out, true), new PrintWriter(err, true)), "schedule", "list",
                "--home", home.toString());
        assertThat(rc).as(err.toString()).isZero();
        Matcher m = Pattern.compile("standup \u00b7 \\* \\* \\* \\* \\* \u00b7 next (\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}) UTC").matcher(out.toString());
        assertThat(m.find()).as(out.toString()).isTrue();
        return m.group(1);
    }

    private static String due(String prompt) {
        Matcher m = DUE.matcher(prompt);
        if (!m.find()) {
            throw new AssertionError("no due time in: " + prompt);
        }
        return m.group(1);
    }
}
