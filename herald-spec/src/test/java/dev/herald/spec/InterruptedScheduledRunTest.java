package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobRun;
import dev.herald.core.schedule.ScheduleCommand;
import dev.herald.core.schedule.ScheduleMetrics;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scheduled run that delivers to a chat, cut off by a restart or a crash, finishes its task: the restart resumes it
 * as the scheduled task (not with the interactive "session was restored" note, which made the model report the
 * restore and skip the work), or runs it again from the start when nothing of it was recorded; its chat gets the
 * task's result once, and the run's record shows the final outcome, not {@code interrupted}. Through the real gateway
 * on a real SQLite file, with the clock moved by hand.
 */
class InterruptedScheduledRunTest extends GatewaySpec {
    static final String TASK_NOTE = "[System note: The scheduled task below was interrupted by ";
    Schedules schedules;
    ScriptedAgent.Hold held;

    /** Records a tool call and its result for the run, then lets {@code next} answer (a crash cut it off while it held). */
    record WorkThenHold(Agent next) implements Agent {
        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            listener.onMessage(ChatMessage.assistant("", List.of(new ToolCall("call-1", "http_get", "{\"url\":\"http://127.0.0.1/news\"}"))));
            listener.onMessage(ChatMessage.tool("call-1", "http_get", "three headlines"));
            return next.runTurn(request, listener, interrupt);
        }

        @Override
        public String describe() {
            return "records work, then holds";
        }
    }

    private void wire() {
        h.with(b -> {
            schedules = new Schedules(h.storage.schedules(), h.clock, ZoneId.of("UTC"), p -> true);
            return b.command(new ScheduleCommand(schedules));
        });
        h.build();
        h.start();
    }

    private Scheduler scheduler() {
        return new Scheduler(h.storage.schedules(), h.gateway, h.clock, ScheduleMetrics.NONE, Scheduler.Settings.defaults());
    }

    /** A job of alice's chat whose first run is held by the agent; returns the job once the run is at the agent. */
    private Job runHeld(boolean recordsWork) {
        h = new Harness(dir).platform("telegram", true);
        ScriptedAgent.Hold hold = h.agent.hold("the first process's answer");
        held = hold;
        if (recordsWork) {
            h.agentOverride = new WorkThenHold(h.agent);
        }
        wire();
        Job job = schedules.create(Schedules.Draft.of("*/5 * * * *", "compile the report"), alice, false, Definer.CHAT);
        h.clock.set(job.nextRunAt().plusSeconds(1));
        scheduler().tick();
        hold.awaitArrival(Harness.WAIT);
        h.agentOverride = null;
        return job;
    }

    /**
     * The next process: its agent answers {@code answer}; returns once the resumed run has delivered and the process
     * before (abandoned as a kill -9 leaves it, or stopped) has let go of its held turn, which sends nothing.
     */
    private void restartAndAwait(String answer) {
        Gateway before = h.gateway;
        h.restart();
        h.agent.reply(answer);
        wire();
        h.loopback("telegram").awaitSent(t -> t.equals(answer), Harness.WAIT);
        awaitIdle();
        h.clock.advance(Duration.ofSeconds(10));
        scheduler().tick(); // a sweep settles ended runs
        held.release();
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (!before.activeTurns().isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private void awaitIdle() {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while ((h.gateway.status().claimedLanes() > 0 || h.gateway.status().activeTurns() > 0) && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    private List<String> replies(LoopbackPlatform p) {
        return p.sent().stream().filter(s -> s.message().kind() == MessageKind.REPLY).map(LoopbackPlatform.Sent::text).toList();
    }

    @Test
    void killAfterTheRunRecordedWork_theRestartContinuesTheTask_deliversItOnce_andTheRunEndsResumedOk() {
        Job job = runHeld(true);
        String task = h.agent.calls().get(0).userMessage();
        LoopbackPlatform before = h.loopback("telegram");

        restartAndAwait("the report"); // kill -9: the running gateway is abandoned as it is

        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m)
                .startsWith(TASK_NOTE + "a gateway interruption")
                .contains("CONTINUE the scheduled task", "already appear in the history")
                .doesNotContain("session was restored", "ask what they would like to do next")
                .endsWith("]\n\n" + task));
        assertThat(h.agent.calls().get(0).interactive()).as("the chat itself is interactive").isTrue();
        assertThat(replies(h.loopback("telegram"))).containsExactly("the report");
        assertThat(replies(before)).isEmpty();
        assertThat(h.storage.schedules().runs(job.id(), 10)).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(JobRun.State.DONE);
            assertThat(r.outcome()).isEqualTo("resumed, ok");
        });
        h.loopback("telegram").say(alice, "/schedule list");
        h.loopback("telegram").awaitSent(t -> t.contains(job.id() + " \u00b7 */5 * * * * \u00b7 next ") && t.contains(" \u00b7 last resumed, ok ("),
                Harness.WAIT);
    }

    @Test
    void killBeforeTheRunRecordedAnything_theRestartRunsTheTaskAgainFromTheStart_once() {
        Job job = runHeld(false);
        String task = h.agent.calls().get(0).userMessage();

        restartAndAwait("the report");

        assertThat(h.agent.messages()).as("the task as first given, no note").containsExactly(task);
        assertThat(replies(h.loopback("telegram"))).containsExactly("the report");
        assertThat(schedules.find(job.id()).orElseThrow().lastOutcome()).isEqualTo("resumed, ok");
        assertThat(schedules.find(job.id()).orElseThrow().nextRunAt()).as("the due time is not fired again")
                .isEqualTo(job.nextRunAt().plus(Duration.ofMinutes(5)));
    }

    @Test
    void restartWhileTheRunWorks_theNextStartContinuesTheTask_andTheRunEndsResumedOk() {
        Job job = runHeld(true);
        Gateway stopping = h.gateway;

        stopping.stop(StopKind.RESTART, false); // the drain timeout passes with the run still working
        assertThat(h.entry(alice).resumePending()).isTrue();
        restartAndAwait("the report");

        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m).startsWith(TASK_NOTE + "a gateway restart")
                .doesNotContain("session was restored"));
        assertThat(replies(h.loopback("telegram"))).containsExactly("the report");
        assertThat(h.storage.schedules().runs(job.id(), 10)).extracting(JobRun::outcome).containsExactly("resumed, ok");
    }

    @Test
    void aUsersOwnCutOffTurnInTheSameChat_stillGetsTheInteractiveNote() {
        h = new Harness(dir).platform("telegram", true);
        ScriptedAgent.Hold hold = h.agent.hold("never");
        wire();
        h.loopback("telegram").say(alice, "a long question");
        hold.awaitArrival(Harness.WAIT);

        h.restart();
        wire();
        h.agent.awaitCalls(1, Harness.WAIT);
        awaitIdle();

        assertThat(h.agent.messages()).singleElement().satisfies(m -> assertThat(m)
                .startsWith("[System note: The previous turn was interrupted").contains("session was restored successfully"));
    }
}
