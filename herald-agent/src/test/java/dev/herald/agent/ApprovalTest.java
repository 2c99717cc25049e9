package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Tool;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dangerous calls ask the listener first; every answer but an approval becomes the result the model reads. */
class ApprovalTest {
    @TempDir
    Path root;
    @TempDir
    Path elsewhere;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();
    private final Harness.Counting count = new Harness.Counting("count");
    private ModelAgent agent;

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private ModelAgent agent() {
        if (agent == null) {
            agent = new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root, List.of(count)));
        }
        return agent;
    }

    private void scriptShell(String id, String command, String answer) {
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall(id, "shell", "{\"command\":\"" + command + "\"}")), Reply.text(answer));
    }

    @Test
    void shell_approvedOnce_asksWithTheCommandAndRunsIt() {
        scriptShell("call_1", "echo approved-output", "it printed");

        TurnOutcome outcome = agent().runTurn(turn("run it"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("it printed"));
        assertThat(listener.approvals).containsExactly(new ApprovalRequest("call_1", "shell", "echo approved-output", "runs a shell command",
                "Command (20 characters, run with bash -c in " + workspaceOf("call_1") + "):\necho approved-output"));
        assertThat(listener.toolResults().get(0).content()).startsWith("exit code 0 (").endsWith("approved-output\n");
        assertThat(listener.events).containsSubsequence("message:assistant:null", "approval:shell", "start:shell");
    }

    @Test
    void shell_denied_recordsTheDenialForTheModelAndDoesNotRun() {
        listener.approver = request -> ApprovalDecision.DENIED;
        scriptShell("call_1", "touch denied-marker", "ok, I will not");

        TurnOutcome outcome = agent().runTurn(turn("touch it"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("ok, I will not"));
        assertThat(listener.toolResults()).extracting(ChatMessage::content).containsExactly(ApprovalDecision.DENIED.toolResultText());
        assertThat(fake.lastRequest().messages().getLast().content()).isEqualTo(ApprovalDecision.DENIED.toolResultText());
        try (var files = Files.walk(root)) {
            assertThat(files.filter(p -> p.endsWith("denied-marker"))).isEmpty();
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shell_approvalTimedOut_tellsTheModelNobodyApprovedInTimeAndTheTurnGoesOn() {
        listener.approver = request -> ApprovalDecision.TIMED_OUT;
        scriptShell("call_1", "echo never", "nobody answered");

        TurnOutcome outcome = agent().runTurn(turn("run it"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("nobody answered"));
        assertThat(listener.toolResults()).extracting(ChatMessage::content).containsExactly(ApprovalDecision.TIMED_OUT.toolResultText());
    }

    @Test
    void shell_approvedAlways_isNotAskedAgainInTheSameSessionButIsInAnother() {
        listener.approver = request -> ApprovalDecision.APPROVED_ALWAYS;
        scriptShell("call_1", "echo one", "one");
        agent().runTurn(turn("first"), listener, new Interrupt());
        scriptShell("call_2", "echo two", "two");

        TurnOutcome second = agent().runTurn(turn("second"), listener, new Interrupt());

        assertThat(second).isEqualTo(new TurnOutcome.Final("two"));
        assertThat(listener.approvals).extracting(ApprovalRequest::toolCallId).containsExactly("call_1");
        assertThat(listener.toolResults()).extracting(ChatMessage::content).allMatch(c -> c.startsWith("exit code 0"));

        scriptShell("call_3", "echo three", "three");
        agent().runTurn(new TurnRequest("s-9", "loopback:dm:2", List.of(), "other chat", true, "loopback"), listener, new Interrupt());
        assertThat(listener.approvals).extracting(ApprovalRequest::toolCallId).containsExactly("call_1", "call_3");
    }

    @Test
    void shell_onNonInteractivePlatformWithDenyPolicy_isDeniedWithoutRunning() {
        List<ChatMessage> stored = new ArrayList<>();
        TurnListener webhook = stored::add;
        scriptShell("call_1", "touch never", "denied here");

        TurnOutcome outcome = agent().runTurn(new TurnRequest("s-3", null, List.of(), "run", false, "webhook"), webhook, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("denied here"));
        assertThat(stored.get(1).content()).isEqualTo(ApprovalDecision.DENIED_NON_INTERACTIVE.toolResultText());
    }

    @Test
    void shell_interruptedWhileWaitingForApproval_recordsEveryCallAsNotRunAndEndsInterrupted() {
        Interrupt interrupt = new Interrupt();
        listener.approver = request -> {
            interrupt.raise("shutdown_timeout");
            return ApprovalDecision.INTERRUPTED;
        };
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_1", "shell", "{\"command\":\"echo no\"}"),
                new Reply.ToolCall("call_2", "count", "{}")));

        TurnOutcome outcome = agent().runTurn(turn("run"), listener, interrupt);

        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("shutdown_timeout"));
        assertThat(listener.toolResults()).extracting(ChatMessage::toolCallId).containsExactly("call_1", "call_2");
        assertThat(listener.toolResults().get(0).content()).isEqualTo(ApprovalDecision.INTERRUPTED.toolResultText());
        assertThat(listener.toolResults().get(1).content()).startsWith("Interrupted: the turn was stopped (shutdown_timeout) before this call started");
        assertThat(count.runs).isEmpty();
        assertThat(fake.requests()).hasSize(1);
    }

    @Test
    void shell_approvedButInterruptRaisedMeanwhile_doesNotRun() {
        Interrupt interrupt = new Interrupt();
        listener.approver = request -> {
            interrupt.raise("/stop");
            return ApprovalDecision.APPROVED_ONCE;
        };
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_1", "shell", "{\"command\":\"touch late-marker\"}")));

        TurnOutcome outcome = agent().runTurn(turn("run"), listener, interrupt);

        assertThat(outcome).isEqualTo(new TurnOutcome.Interrupted("/stop"));
        assertThat(listener.toolResults().get(0).content()).isEqualTo(ApprovalDecision.INTERRUPTED.toolResultText());
    }

    @Test
    void writeFile_insideTheWorkspaceRunsWithoutAskingButOutsideAsksWithTheReason() {
        listener.approver = request -> ApprovalDecision.DENIED;
        String outside = elsewhere.resolve("out.txt").toString();
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("in", "write_file", "{\"path\":\"in.txt\",\"content\":\"a\"}"),
                new Reply.ToolCall("out", "write_file", "{\"path\":\"" + outside + "\",\"content\":\"b\"}")), Reply.text("done"));

        agent().runTurn(turn("write"), listener, new Interrupt());

        assertThat(listener.approvals).containsExactly(new ApprovalRequest("out", "write_file", "write 1 characters to " + outside,
                "writes outside the workspace", "Write (replacing it) " + outside + " (outside the workspace " + workspaceOf("out")
                        + ")\n1 bytes, 1 line:\nb"));
        assertThat(listener.toolResults().get(0).content()).startsWith("wrote 1 characters to ");
        assertThat(Files.exists(Path.of(outside))).isFalse();
    }

    @Test
    void readFile_outsideTheWorkspaceAsksFirstSoSecretsElsewhereStayUnread() throws Exception {
        listener.approver = request -> ApprovalDecision.DENIED;
        Path secret = Files.writeString(elsewhere.resolve("config.yaml"), "api_key: sk-live-secret");
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("r", "read_file", "{\"path\":\"" + secret + "\"}")), Reply.text("done"));

        agent().runTurn(turn("read it"), listener, new Interrupt());

        assertThat(listener.approvals).singleElement().satisfies(a -> assertThat(a.reason()).startsWith("reads outside the workspace"));
        assertThat(listener.toolResults().get(0).content()).isEqualTo(ApprovalDecision.DENIED.toolResultText()).doesNotContain("sk-live");
    }

    /** The workspace of this test's turns (every turn here has the same scope). */
    private Path workspaceOf(String unused) {
        return Harness.registry(root, List.of()).context(turn("x"), new Interrupt()).workspace();
    }

    @Test
    void shell_commandOf371Characters_isShownWholeInTheApprovalAndRunsAsShown() {
        String command = "echo start; " + "echo " + "x".repeat(332) + "; echo end-of-the-tail";
        assertThat(command).hasSize(371);
        scriptShell("call_long", command, "done");

        agent().runTurn(turn("run the long one"), listener, new Interrupt());

        assertThat(listener.approvals).singleElement().satisfies(a -> {
            assertThat(a.detail()).endsWith("\n" + command).contains("371 characters");
            assertThat(a.summary()).hasSizeLessThan(command.length());
        });
        assertThat(listener.toolResults().get(0).content()).contains("end-of-the-tail");
    }

    @Test
    void shell_commandLongerThanTheApprovalLimit_isRefusedWithoutAskingAndTheModelIsToldWhy() {
        String command = "echo " + "y".repeat(Tool.APPROVAL_LIMIT);
        scriptShell("call_huge", command, "I will split it");

        agent().runTurn(turn("run the huge one"), listener, new Interrupt());

        assertThat(listener.approvals).isEmpty();
        assertThat(listener.toolResults().get(0).content()).isEqualTo("Denied: the command is 4,005 characters, and approval questions "
                + "show at most 4,000 so that the person approving can read all of it; it was not run and nobody was asked. Split the "
                + "work into shorter steps.");
        assertThat(listener.activity).containsExactly("denied:shell");
    }

    @Test
    void writeFile_outsideTheWorkspace_asksWithTheResolvedPathSizeAndFirstAndLastLines() throws Exception {
        listener.approver = request -> ApprovalDecision.DENIED;
        StringBuilder content = new StringBuilder();
        for (int i = 1; i <= 40; i++) {
            content.append("line ").append(i).append('\n');
        }
        String given = elsewhere.resolve("sub/../notes.txt").toString();
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("w", "write_file", "{\"path\":\"" + given + "\",\"content\":"
                + Args.JSON.writeValueAsString(content.toString()) + "}")), Reply.text("ok"));

        agent().runTurn(turn("write notes"), listener, new Interrupt());

        assertThat(listener.approvals).singleElement().satisfies(a -> assertThat(a.detail()).isEqualTo(
                "Write (replacing it) " + elsewhere.resolve("notes.txt") + " (outside the workspace " + workspaceOf("w") + ")\n"
                        + "311 bytes, 40 lines; first 8 and last 8 lines:\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
                        + "…[24 lines not shown]…\nline 33\nline 34\nline 35\nline 36\nline 37\nline 38\nline 39\nline 40"));
        assertThat(listener.activity).containsExactly("denied:write_file");
        assertThat(Files.exists(elsewhere.resolve("notes.txt"))).isFalse();
    }

    @Test
    void readFile_throughALinkOutOfTheWorkspace_showsWhereTheLinkLeads() throws Exception {
        listener.approver = request -> ApprovalDecision.DENIED;
        Path workspace = workspaceOf("r");
        Files.createDirectories(workspace);
        Path secret = Files.writeString(elsewhere.resolve("secret.txt"), "s");
        Files.createSymbolicLink(workspace.resolve("innocent.txt"), secret);
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("r", "read_file", "{\"path\":\"innocent.txt\"}")), Reply.text("ok"));

        agent().runTurn(turn("read it"), listener, new Interrupt());

        assertThat(listener.approvals).singleElement().satisfies(a -> assertThat(a.detail()).isEqualTo("Read "
                + workspace.resolve("innocent.txt") + " (a link to " + secret.toRealPath() + ") (outside the workspace " + workspace + ")"));
    }
}
