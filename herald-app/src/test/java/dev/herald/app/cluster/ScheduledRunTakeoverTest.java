package dev.herald.app.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.Admission;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.JobRun;
import dev.herald.core.schedule.ScheduleMetrics;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A scheduled run whose node dies during it is taken over by another node of the cluster and finishes as the
 * scheduled task: the survivor's model is told to continue the task (not that the session was restored), the chat
 * gets the task's result once, and the run's record says {@code resumed, ok}.
 */
class ScheduledRunTakeoverTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    Node a;
    Node b;

    @AfterEach
    void stopNodes() {
        if (b != null) {
            b.close();
        }
        if (a != null) {
            try {
                a.gateway.stop(StopKind.SHUTDOWN, false); // ends its threads; its store is closed, so it writes nothing
            } catch (RuntimeException e) {
                // the killed node's stop finds its store closed
            }
        }
    }

    @Test
    void aRunWhoseNodeDies_isResumedAsTheTaskByTheSurvivor_andEndsResumedOk() throws Exception {
        ScriptedAgent first = new ScriptedAgent();
        ScriptedAgent.Hold hold = first.hold("the dead node's answer");
        Agent recordsWorkThenHolds = new Agent() {
            @Override
            public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
                listener.onMessage(ChatMessage.assistant("", List.of(new ToolCall("call-1", "todo", "{\"action\":\"list\"}"))));
                listener.onMessage(ChatMessage.tool("call-1", "todo", "1. collect the numbers"));
                return first.runTurn(request, listener, interrupt);
            }

            @Override
            public String describe() {
                return "records a tool call, then holds";
            }
        };
        a = new Node("a", PostgresStorage.open(db.options(), Clock.systemUTC()), true, Duration.ofSeconds(2), Clock.systemUTC(),
                recordsWorkThenHolds);
        a.start();
        b = new Node("b", PostgresStorage.open(db.options(), Clock.systemUTC()), true, Duration.ofSeconds(2), Clock.systemUTC());
        b.start();
        b.agent.reply("the report");
        Schedules schedules = new Schedules(a.storage.schedules(), Clock.systemUTC(), ZoneOffset.UTC, p -> true);
        Job job = schedules.create(Schedules.Draft.of("0 9 * * *", "compile the report"), Node.dm("erin"), true, Definer.CHAT);
        Scheduler onA = new Scheduler(a.storage.schedules(), a.gateway, Clock.systemUTC(), ScheduleMetrics.NONE, Scheduler.Settings.defaults());

        assertThat(onA.runNow(job.id())).contains(Admission.ACCEPTED);
        String task = hold.awaitArrival(WAIT).userMessage();
        a.storage.close(); // as kill -9: node a writes nothing more and its lease runs out

        b.chat.awaitSent(t -> t.equals("the report"), WAIT);
        Scheduler onB = new Scheduler(b.storage.schedules(), b.gateway, Clock.systemUTC(), ScheduleMetrics.NONE, Scheduler.Settings.defaults());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (b.storage.schedules().runs(job.id(), 10).stream().anyMatch(r -> r.state() != JobRun.State.DONE) && System.nanoTime() < deadline) {
            onB.tick();
            Thread.sleep(100);
        }
        hold.release();

        assertThat(b.agent.messages()).singleElement().satisfies(m -> assertThat(m)
                .startsWith("[System note: The scheduled task below was interrupted by a gateway interruption")
                .contains("CONTINUE the scheduled task").doesNotContain("session was restored")
                .endsWith("]\n\n" + task));
        assertThat(b.chat.sentMatching(t -> t.equals("the report"))).hasSize(1);
        assertThat(a.chat.sent()).as("the dead node sent nothing").isEmpty();
        assertThat(b.storage.schedules().runs(job.id(), 10)).singleElement().satisfies(r -> assertThat(r.outcome()).isEqualTo("resumed, ok"));
    }
}
