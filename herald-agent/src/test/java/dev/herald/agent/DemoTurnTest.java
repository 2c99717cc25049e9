package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.demo.DemoModel;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.transcript.Role;
import dev.herald.core.turn.TurnOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo model in the real agent loop with the real tools: what a newcomer sees without a configured model. */
class DemoTurnTest {
    @TempDir
    Path tmp;

    private ModelAgent agent() {
        return new ModelAgent(new DemoModel(), AgentSettings.DEFAULT, Harness.registry(tmp.resolve("workspaces"), List.of()));
    }

    private static TurnRequest ask(String text) {
        return new TurnRequest("s-1", "agent:main:webchat:dm:demo", List.of(), text, true, "webchat");
    }

    @Test
    void listMyFiles_runsListDirInTheConversationFolder_andShowsWhatItFound() throws Exception {
        Path workspace = Harness.registry(tmp.resolve("workspaces"), List.of()).context(ask("x"), new Interrupt()).workspace();
        Files.createDirectories(workspace);
        Files.writeString(workspace.resolve("plan.txt"), "hello");
        RecordingListener listener = new RecordingListener();

        TurnOutcome outcome = agent().runTurn(ask("list my files"), listener, new Interrupt());

        assertThat(listener.messages.get(0).toolCalls()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("list_dir"));
        assertThat(listener.messages.get(1).role()).isEqualTo(Role.TOOL);
        assertThat(outcome).isInstanceOf(TurnOutcome.Final.class);
        assertThat(outcome.replyText()).startsWith(DemoModel.LABEL + "`list_dir` answered:").contains("plan.txt");
        assertThat(listener.approvals).as("listing the conversation's own folder asks nothing").isEmpty();
    }

    @Test
    void writeANote_writesItInTheConversationFolder() {
        RecordingListener listener = new RecordingListener();

        TurnOutcome outcome = agent().runTurn(ask("please write a note"), listener, new Interrupt());

        Path workspace = Harness.registry(tmp.resolve("workspaces"), List.of()).context(ask("x"), new Interrupt()).workspace();
        assertThat(workspace.resolve("demo-note.md")).content().startsWith("# A note from the demo model");
        assertThat(outcome.replyText()).startsWith(DemoModel.LABEL + "`write_file` answered:");
    }

    @Test
    void runACommand_asksForApprovalFirst_andADenialRunsNothing() {
        RecordingListener listener = new RecordingListener();
        listener.approver = request -> ApprovalDecision.DENIED;

        TurnOutcome outcome = agent().runTurn(ask("run a command"), listener, new Interrupt());

        assertThat(listener.approvals).singleElement().satisfies(a -> assertThat(a.toolName()).isEqualTo("shell"));
        assertThat(outcome.replyText()).startsWith(DemoModel.LABEL + "`shell` did not run: Denied");
    }

    @Test
    void runACommand_approved_runsIt_andShowsItsOutput() {
        RecordingListener listener = new RecordingListener();

        TurnOutcome outcome = agent().runTurn(ask("run a command"), listener, new Interrupt());

        assertThat(listener.approvals).hasSize(1);
        assertThat(outcome.replyText()).contains("Hello from the demo model");
    }
}
