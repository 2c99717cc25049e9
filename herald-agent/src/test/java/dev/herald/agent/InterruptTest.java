package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolResult;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Hold;
import dev.herald.testkit.model.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Raising the interrupt stops the model stream and running tools; the transcript has a result for every started call. */
class InterruptTest {
    @TempDir
    Path root;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private ModelAgent agent;

    @BeforeEach
    void build() {
        agent = new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root, List.of()));
    }

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    @Test
    void interrupt_duringTheModelStreamOfAToolTurn_endsInterruptedWithThePartialTextRecorded() throws Exception {
        Hold hold = fake.enqueueHeld(Reply.stream("Let me ", "check"), 1);
        Interrupt interrupt = new Interrupt();
        CompletableFuture<Void> stopper = CompletableFuture.runAsync(() -> {
            hold.awaitArrived(Duration.ofSeconds(5));
            try {
                listener.awaitDelta();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            interrupt.raise("/stop");
        });

        TurnOutcome outcome = agent.runTurn(turn("check"), listener, interrupt);

        stopper.get(5, TimeUnit.SECONDS);
        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(listener.messages).containsExactly(ChatMessage.assistant("Let me "));
    }

    @Test
    void interrupt_duringALongShellCommand_killsItsWholeProcessTreeAndRecordsAnInterruptedResult() throws Exception {
        String command = "echo $$ > shell.pid; sleep 30 & echo $! > child.pid; echo started; wait";
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_long", "shell", "{\"command\":\"" + command + "\"}")));
        Interrupt interrupt = new Interrupt();
        CompletableFuture<TurnOutcome> running = CompletableFuture.supplyAsync(() -> agent.runTurn(turn("wait"), listener, interrupt));
        Path workspace = await().atMost(Duration.ofSeconds(5)).until(() -> workspaceWith(root, "child.pid"), p -> p != null);
        long shellPid = Long.parseLong(Files.readString(workspace.resolve("shell.pid")).strip());
        long childPid = Long.parseLong(Files.readString(workspace.resolve("child.pid")).strip());
        assertThat(ProcessHandle.of(childPid)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

        long start = System.nanoTime();
        interrupt.raise("/stop");
        TurnOutcome outcome = running.get(5, TimeUnit.SECONDS);

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(listener.toolResults()).singleElement().satisfies(result -> {
            assertThat(result.toolCallId()).isEqualTo("call_long");
            assertThat(result.content()).startsWith("Interrupted: the command was stopped after ").contains("(/stop)").contains("started");
        });
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(gone(shellPid)).as("the shell %d is gone", shellPid).isTrue();
            assertThat(gone(childPid)).as("its child %d is gone", childPid).isTrue();
        });
        assertThat(fake.requests()).hasSize(1);
    }

    /** The workspace below {@code root} holding a non-empty {@code file}, or null. */
    private static Path workspaceWith(Path root, String file) throws java.io.IOException {
        try (var dirs = Files.list(root)) {
            for (Path dir : dirs.toList()) {
                Path candidate = dir.resolve(file);
                if (Files.exists(candidate) && Files.size(candidate) > 0) {
                    return dir;
                }
            }
        }
        return null;
    }

    /** Gone, or a zombie waiting for a parent that does not reap (containers without an init). */
    private static boolean gone(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return true;
        }
        String text = Files.readString(stat);
        return text.substring(text.lastIndexOf(')') + 2).startsWith("Z");
    }

    @Test
    void interrupt_duringParallelCalls_givesEveryStartedCallAResultEvenOneThatIgnoresTheSignal() throws Exception {
        Stubborn stubborn = new Stubborn();
        ModelAgent withStubborn = new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root, List.of(stubborn)));
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_sh", "shell", "{\"command\":\"sleep 30\"}"),
                new Reply.ToolCall("call_st", "stubborn", "{}")));
        Interrupt interrupt = new Interrupt();
        CompletableFuture<TurnOutcome> running = CompletableFuture.supplyAsync(() -> withStubborn.runTurn(turn("both"), listener, interrupt));
        stubborn.started.await(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> listener.activity.contains("start:shell"));

        interrupt.raise("/stop");
        TurnOutcome outcome = running.get(6, TimeUnit.SECONDS);
        stubborn.release.countDown();

        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(listener.toolResults()).extracting(ChatMessage::toolCallId).containsExactly("call_sh", "call_st");
        assertThat(listener.toolResults().get(0).content()).startsWith("Interrupted: the command was stopped after ");
        assertThat(listener.toolResults().get(1).content()).isEqualTo("Interrupted: the call was still running when the turn was "
                + "stopped (/stop); it was abandoned and may have had partial effects.");
    }

    /** A safe tool that ignores the interrupt until the test releases it. */
    private static final class Stubborn implements Tool {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "stubborn";
        }

        public String description() {
            return "ignores interrupts";
        }

        public JsonNode parameters() {
            return Args.schema(new String[0]);
        }

        public Danger danger(JsonNode args, ToolContext context) {
            return Danger.NONE;
        }

        public String summarize(JsonNode args) {
            return "stubborn";
        }

        public ToolResult execute(JsonNode args, ToolContext context) {
            started.countDown();
            while (true) {
                try {
                    if (release.await(10, TimeUnit.SECONDS)) {
                        return ToolResult.ok("finally");
                    }
                } catch (InterruptedException ignored) {
                    // deliberately deaf to interrupts
                }
            }
        }
    }

    @Test
    void interrupt_alreadyRaised_endsInterruptedWithoutCallingTheModel() {
        Interrupt interrupt = new Interrupt();
        interrupt.raise("/stop");

        assertThat(agent.runTurn(turn("hi"), listener, interrupt)).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(fake.requests()).isEmpty();
    }
}
