package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where tools work: each conversation's workspace is private, and a stateless turn's workspace goes with the turn. */
class WorkspaceTest {
    @TempDir
    Path tmp;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private Path root() {
        return tmp.resolve("workspaces");
    }

    private ModelAgent agent() {
        return new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root(), List.of()));
    }

    private static TurnRequest stateless(String id) {
        return new TurnRequest(id, null, List.of(), "write a note", false, "api_server");
    }

    private static TurnRequest session(String id) {
        return new TurnRequest(id, "agent:main:api_server:dm:notes", List.of(), "write a note", false, "api_server");
    }

    private Path workspaceOf(TurnRequest request) {
        return Harness.registry(root(), List.of()).context(request, new Interrupt()).workspace();
    }

    private void scriptWriteThenAnswer() {
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_w", "write_file", "{\"path\":\"notes.txt\",\"content\":\"hello\"}")),
                Reply.text("noted"));
    }

    @Test
    void statelessTurn_thatWroteInItsWorkspace_leavesNothingBehind() {
        scriptWriteThenAnswer();
        RecordingListener listener = new RecordingListener();

        TurnOutcome outcome = agent().runTurn(stateless("call-1"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("noted"));
        assertThat(listener.messages.get(1).content()).as("the file was written during the turn")
                .startsWith("wrote 5 characters to " + workspaceOf(stateless("call-1")));
        assertThat(workspaceOf(stateless("call-1"))).doesNotExist();
        assertThat(root()).isEmptyDirectory();
    }

    @Test
    void sessionTurn_keepsItsWorkspaceForTheNextTurn() {
        scriptWriteThenAnswer();

        agent().runTurn(session("s-1"), new RecordingListener(), new Interrupt());

        assertThat(workspaceOf(session("s-1")).resolve("notes.txt")).hasContent("hello");
    }

    @Test
    void statelessTurn_withALinkInItsWorkspace_removesTheLinkNotWhatItPointsTo() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("keep.txt"), "mine");
        Path workspace = Files.createDirectories(workspaceOf(stateless("call-2")));
        Files.createSymbolicLink(workspace.resolve("link"), outside);
        fake.enqueue(Reply.text("nothing to do"));

        agent().runTurn(stateless("call-2"), new RecordingListener(), new Interrupt());

        assertThat(workspace).doesNotExist();
        assertThat(outside.resolve("keep.txt")).hasContent("mine");
    }

    @Test
    void workspaces_areCreatedOwnerOnly_whateverTheUmask() throws Exception {
        scriptWriteThenAnswer();

        agent().runTurn(session("s-2"), new RecordingListener(), new Interrupt());

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root()))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(workspaceOf(session("s-2"))))).isEqualTo("rwx------");
    }

    @Test
    void builtinNames_nameEveryBuiltinTool() {
        assertThat(BuiltinTools.all(ToolSettings.defaults(tmp)).stream().map(t -> t.name()).toList()).isEqualTo(BuiltinTools.NAMES);
        assertThat(new ToolRegistry(ToolSettings.defaults(tmp), BuiltinTools.all(ToolSettings.defaults(tmp)), List.of())
                .forPlatform("any").size()).isEqualTo(BuiltinTools.NAMES.size());
    }

    @Test
    void fileTools_refuseAnotherConversationsWorkspace_byRelativeAbsoluteOrLinkedPath_withoutAskingAnyone() throws Exception {
        TurnRequest anns = new TurnRequest("ann-1", "agent:main:webchat:dm:anns-conversation", List.of(), "look around", false, "webchat");
        TurnRequest bobs = new TurnRequest("bob-1", "agent:main:webchat:dm:bobs-conversation", List.of(), "keep this", false, "webchat");
        Path bobsWorkspace = Files.createDirectories(workspaceOf(bobs));
        Path secret = Files.writeString(bobsWorkspace.resolve("secret.txt"), "bob's secret");
        Path annsWorkspace = Files.createDirectories(workspaceOf(anns));
        Files.createSymbolicLink(annsWorkspace.resolve("door"), bobsWorkspace);
        String bobsDir = bobsWorkspace.getFileName().toString();
        fake.enqueue(Reply.toolCalls(
                new Reply.ToolCall("c1", "read_file", "{\"path\":\"../" + bobsDir + "/secret.txt\"}"),
                new Reply.ToolCall("c2", "read_file", "{\"path\":\"" + secret + "\"}"),
                new Reply.ToolCall("c3", "read_file", "{\"path\":\"door/secret.txt\"}"),
                new Reply.ToolCall("c4", "list_dir", "{\"path\":\"..\"}"),
                new Reply.ToolCall("c5", "write_file", "{\"path\":\"../" + bobsDir + "/planted.txt\",\"content\":\"x\"}"),
                new Reply.ToolCall("c6", "send_file", "{\"path\":\"door/secret.txt\"}"),
                new Reply.ToolCall("c7", "write_file", "{\"path\":\"mine.txt\",\"content\":\"ann's own\"}")),
                Reply.text("done"));
        RecordingListener listener = new RecordingListener();

        agent().runTurn(anns, listener, new Interrupt());

        List<String> results = listener.messages.stream().filter(m -> m.role() == dev.herald.core.transcript.Role.TOOL)
                .map(m -> m.content()).toList();
        assertThat(results).hasSize(7);
        assertThat(results.subList(0, 5)).allSatisfy(r -> assertThat(r)
                .contains("outside this conversation's own; each conversation reaches only its own workspace"));
        assertThat(results.get(5)).doesNotContain("bob's secret");
        assertThat(results).noneMatch(r -> r.contains("bob's secret") || r.contains("secret.txt  "));
        assertThat(results.get(6)).startsWith("wrote 9 characters to ");
        assertThat(listener.approvals).as("nobody is asked to approve what is refused anyway").isEmpty();
        assertThat(listener.files).isEmpty();
        assertThat(bobsWorkspace.resolve("planted.txt")).doesNotExist();
        assertThat(annsWorkspace.resolve("mine.txt")).hasContent("ann's own");
    }
}
