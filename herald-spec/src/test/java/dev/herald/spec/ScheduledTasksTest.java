package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.lanes.BusyPolicy;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.ScheduleCommand;
import dev.herald.core.schedule.ScheduleMetrics;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scheduled tasks through the real gateway on a real SQLite file: an occurrence is a turn in the job's chat,
 * answered there once; a crash during it is resumed by the continuity rules and the occurrence is not fired
 * again; a removed user's job stops; /schedule manages jobs from the chat. The clock only moves by hand.
 */
class ScheduledTasksTest extends GatewaySpec {
    final SessionSource bob = Harness.dm("telegram", "654321", "u2");
    Schedules schedules;

    private Harness started() {
        h = new Harness(dir).platform("telegram", true);
        h.allowedUsers.add("u2");
        h.adminUsers.add("the-admin"); // alice and bob are not admins
        return wire();
    }

    /** Builds (after a restart: again) the gateway's scheduling parts on the harness's store. */
    private Harness wire() {
        h.with(b -> {
            schedules = new Schedules(h.storage.schedules(), h.clock, ZoneId.of("UTC"), p -> true);
            return b.command(new ScheduleCommand(schedules));
        });
        h.build();
        h.start();
        return h;
    }

    private Scheduler scheduler() {
        return new Scheduler(h.storage.schedules(), h.gateway, h.clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults());
    }

    private List<TurnRecord> scheduledTurns() {
        List<TurnRecord> out = new ArrayList<>();
        for (TurnState s : TurnState.values()) {
            h.storage.turns().inState(s, 1_000).stream().filter(t -> t.origin() == dev.herald.core.platform.MessageEvent.Origin.SCHEDULE)
                    .forEach(out::add);
        }
        return out;
    }

    private List<LoopbackPlatform.Sent> replies(LoopbackPlatform p) {
        return p.sent().stream().filter(s -> s.message().kind() == MessageKind.REPLY).toList();
    }

    private void awaitIdle() {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while ((h.gateway.status().claimedLanes() > 0 || h.gateway.status().activeTurns() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    @Test
    void anOccurrence_runsInTheJobsChat_andIsAnsweredThereOnce() {
        started();
        Job job = schedules.create(Schedules.Draft.of("*/5 * * * *", "summarise the news"), alice, false, Definer.CHAT);
        h.agent.reply("here is the news");
        Scheduler scheduler = scheduler();

        h.clock.set(job.nextRunAt());
        scheduler.tick();
        scheduler.tick();
        h.loopback("telegram").awaitSent(t -> t.equals("here is the news"), Harness.WAIT);
        awaitIdle();
        h.clock.advance(Duration.ofSeconds(10));
        scheduler.tick();

        assertThat(h.agent.calls()).singleElement().satisfies(c -> {
            assertThat(c.userMessage()).startsWith("[Scheduled task " + job.id() + " (*/5 * * * *), due ").endsWith("] summarise the news");
            assertThat(c.sessionKey()).isEqualTo(h.key(alice).value());
        });
        assertThat(replies(h.loopback("telegram"))).singleElement().satisfies(r -> {
            assertThat(r.target()).isEqualTo(alice.target());
            assertThat(r.message().replyToMessageId()).as("it answers no message").isNull();
        });
        assertThat(schedules.find(job.id()).orElseThrow().lastOutcome()).isEqualTo("ok");
    }

    @Test
    void killDuringAScheduledTurn_theRestartResumesItOnce_andTheOccurrenceIsNotFiredAgain() {
        started();
        Job job = schedules.create(Schedules.Draft.of("*/5 * * * *", "compile the report"), alice, false, Definer.CHAT);
        ScriptedAgent.Hold hold = h.agent.hold("the first process's answer");
        h.clock.set(job.nextRunAt().plusSeconds(1));
        scheduler().tick();
        hold.awaitArrival(Harness.WAIT);
        LoopbackPlatform before = h.loopback("telegram");
        dev.herald.core.gateway.Gateway crashed = h.gateway;

        h.restart(); // kill -9: the running gateway is abandoned as it is, the store reopened from disk
        wire();
        Scheduler afterRestart = scheduler().start();
        afterRestart.tick();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();
        hold.release(); // the abandoned process's turn ends now; its turn is closed in the store, so it sends nothing
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (!crashed.activeTurns().isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        afterRestart.close();

        assertThat(h.agent.messages()).as("nothing of the run was recorded: it runs again from the start")
                .containsExactly(hold.awaitArrival(Harness.WAIT).userMessage());
        assertThat(replies(h.loopback("telegram"))).hasSize(1);
        assertThat(scheduledTurns()).as("one turn for the occurrence").hasSize(1);
        assertThat(replies(before)).isEmpty();
        assertThat(schedules.find(job.id()).orElseThrow().nextRunAt()).isEqualTo(job.nextRunAt().plus(Duration.ofMinutes(5)));
    }

    @Test
    void aOneShotInTheSpringForwardGap_runsAt0300Local_notAnHourLate() {
        started();
        // 2027-03-28 in Berlin: clocks jump from 02:00 to 03:00, so 02:30 does not exist; the README promises 03:00
        Job job = schedules.create(new Schedules.Draft("at 2027-03-28T02:30", "water the plants", java.util.Optional.of("Europe/Berlin"),
                java.util.Optional.empty(), java.util.Optional.empty()), alice, false, Definer.CHAT);
        Scheduler scheduler = scheduler();

        h.clock.set(java.time.Instant.parse("2027-03-28T00:59:00Z")); // 01:59 CET
        scheduler.tick();
        assertThat(h.agent.calls()).as("not before the jump").isEmpty();
        h.clock.set(java.time.Instant.parse("2027-03-28T01:00:00Z")); // 03:00 CEST
        scheduler.tick();
        h.loopback("telegram").awaitSent(t -> t.startsWith("echo: "), Harness.WAIT);
        awaitIdle();

        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m)
                .startsWith("[Scheduled task " + job.id() + " (at 2027-03-28T03:00+02:00), due 2027-03-28 03:00 Europe/Berlin]"));
        assertThat(schedules.find(job.id()).orElseThrow().nextRunAt()).as("a one-shot: done").isNull();
    }

    @Test
    void aRemovedUsersJob_stops_withNothingStoredAndNothingSent() {
        started();
        Job job = schedules.create(Schedules.Draft.of("*/5 * * * *", "nag me"), bob, false, Definer.CHAT);
        h.allowedUsers.remove("u2");
        Scheduler scheduler = scheduler();

        h.clock.set(job.nextRunAt());
        scheduler.tick();
        h.clock.advance(Duration.ofMinutes(5));
        scheduler.tick();
        awaitIdle();

        assertThat(scheduledTurns()).isEmpty();
        assertThat(h.agent.calls()).isEmpty();
        assertThat(h.loopback("telegram").sent()).as("no answer, no pairing code").isEmpty();
        assertThat(schedules.find(job.id()).orElseThrow().lastOutcome()).isEqualTo("refused");
    }

    @Test
    void aScheduledTurn_underTheInterruptPolicy_waitsBehindTheUsersTurnInsteadOfCuttingItOff() {
        h = new Harness(dir).platform("telegram", true);
        h.settings = h.settings.withBusyPolicy(BusyPolicy.INTERRUPT);
        wire();
        Job job = schedules.create(Schedules.Draft.of("*/5 * * * *", "routine check"), alice, false, Definer.CHAT);
        ScriptedAgent.Hold hold = h.agent.hold("the user's answer");
        h.loopback("telegram").say(alice, "a long question");
        hold.awaitArrival(Harness.WAIT);

        h.clock.set(job.nextRunAt());
        scheduler().tick();
        hold.release();
        h.agent.awaitCalls(2, Harness.WAIT);
        awaitIdle();

        assertThat(replies(h.loopback("telegram"))).extracting(LoopbackPlatform.Sent::text)
                .containsExactly("the user's answer", "echo: " + h.agent.messages().get(1));
    }

    @Test
    void scheduleCommand_addListPauseFromTheChat_andOthersCannotTouchIt() {
        started();
        LoopbackPlatform chat = h.loopback("telegram");

        chat.say(alice, "/schedule add \"0 9 * * 1-5\" Summarise my inbox");
        String added = chat.awaitSent(t -> t.startsWith("\u23f0 Scheduled"), Harness.WAIT).text();
        String id = added.substring("\u23f0 Scheduled ".length(), added.indexOf(':'));
        chat.say(alice, "/schedule list");
        chat.awaitSent(t -> t.startsWith("Scheduled jobs in this chat:") && t.contains(id + " \u00b7 0 9 * * 1-5"), Harness.WAIT);
        chat.say(alice, "/status");
        chat.awaitSent(t -> t.contains("Scheduled here: 1 job(s)") && t.contains(id + ": next 2026-04-20 09:00 UTC, last not run yet"),
                Harness.WAIT);
        chat.say(bob, "/schedule delete " + id);
        chat.awaitSent(t -> t.equals("There is no job " + id + "; /schedule list shows them."), Harness.WAIT);
        chat.say(alice, "/schedule add in 5m to=telegram:999 spam them");
        chat.awaitSent(t -> t.startsWith("Only admins can schedule a job for another chat (telegram:999)"), Harness.WAIT);
        chat.say(alice, "/schedule pause " + id);
        chat.awaitSent(t -> t.equals("\u23f8 Paused " + id + "."), Harness.WAIT);
        chat.say(alice, "/help");

        chat.awaitSent(t -> t.contains("/schedule add|list|pause|resume|delete"), Harness.WAIT);
        assertThat(schedules.find(id).orElseThrow().status()).isEqualTo("paused");
        assertThat(schedules.all()).hasSize(1);
        assertThat(h.agent.calls()).as("commands are answered inline, never as turns").isEmpty();
    }

    private static void awaitTo(LoopbackPlatform chat, SessionSource who, int count) {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (chat.sent().stream().filter(s -> s.target().equals(who.target())).count() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    @Test
    void anotherChatsJobId_isAnsweredAsAnUnknownId_whileTheOwnersChatAndAnAdminSeeAndManageIt() {
        started();
        LoopbackPlatform chat = h.loopback("telegram");
        SessionSource admin = Harness.dm("telegram", "777", "the-admin");
        h.allowedUsers.add("the-admin");
        chat.say(alice, "/schedule add every 1h water the plants");
        String added = chat.awaitSent(t -> t.startsWith("\u23f0 Scheduled"), Harness.WAIT).text();
        String id = added.substring("\u23f0 Scheduled ".length(), added.indexOf(':'));

        chat.say(bob, "/schedule list");
        chat.say(bob, "/schedule list all");
        for (String action : List.of("pause", "resume", "delete")) {
            chat.say(bob, "/schedule " + action + " " + id);
            chat.say(bob, "/schedule " + action + " zzzzzz");
        }
        awaitTo(chat, bob, 8);
        assertThat(chat.sent().stream().filter(s -> s.target().equals(bob.target())).map(LoopbackPlatform.Sent::text).toList())
                .containsExactly("No scheduled jobs in this chat. /schedule add creates one.",
                        "No scheduled jobs in this chat. /schedule add creates one.",
                        "There is no job " + id + "; /schedule list shows them.", "There is no job zzzzzz; /schedule list shows them.",
                        "There is no job " + id + "; /schedule list shows them.", "There is no job zzzzzz; /schedule list shows them.",
                        "There is no job " + id + "; /schedule list shows them.", "There is no job zzzzzz; /schedule list shows them.");
        assertThat(chat.sent().stream().filter(s -> s.target().equals(bob.target())).map(LoopbackPlatform.Sent::text))
                .as("nothing bob reads names the job's schedule or text").noneMatch(t -> t.contains("plants") || t.contains("every 1h"));
        Job untouched = schedules.find(id).orElseThrow();
        assertThat(untouched.status()).isEqualTo("active");
        assertThatThrownBy(() -> schedules.pause(id, bob, false)).hasMessage("There is no job " + id + "; /schedule list shows them.");

        chat.say(admin, "/schedule list all");
        chat.awaitSent(t -> t.startsWith("All scheduled jobs:") && t.contains(id), Harness.WAIT);
        chat.say(admin, "/schedule pause " + id);
        chat.awaitSent(t -> t.equals("\u23f8 Paused " + id + "."), Harness.WAIT);
        assertThat(schedules.find(id).orElseThrow().status()).isEqualTo("paused");
        chat.say(alice, "/schedule delete " + id);
        chat.awaitSent(t -> t.equals("\ud83d\uddd1 Deleted " + id + "."), Harness.WAIT);
        assertThat(schedules.all()).isEmpty();
    }
}
