package dev.herald.agent;

import static dev.herald.agent.Harness.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.skill.SkillTool;
import dev.herald.agent.skill.Skills;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code skill} tool as the model uses it: offered with the skills' names and descriptions, called by the fake model. */
class SkillTurnTest {
    @TempDir
    Path root;
    @TempDir
    Path home;

    private final FakeModelServer fake = FakeModelServer.start();
    private final OpenAiCompatibleClient client = Harness.client(fake);
    private final RecordingListener listener = new RecordingListener();

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private Path skills() {
        return home.resolve("skills");
    }

    private ModelAgent agent(boolean writable) {
        return new ModelAgent(client, AgentSettings.DEFAULT, Harness.registry(root, List.of(new SkillTool(new Skills(skills(), writable)))));
    }

    private void writeSkill(String name, String description, String body) throws IOException {
        Files.createDirectories(skills().resolve(name));
        Files.writeString(skills().resolve(name).resolve("SKILL.md"), "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body);
    }

    private static Reply call(String id, String args) {
        return Reply.toolCalls(new Reply.ToolCall(id, "skill", args));
    }

    private List<String> results() {
        return listener.toolResults().stream().map(ChatMessage::content).toList();
    }

    @Test
    void theModel_seesNamesAndDescriptions_loadsABody_andReadsAFileBesideIt_butNothingOutsideTheFolder() throws IOException {
        writeSkill("pdf-report", "Turns notes into a PDF report. Use when asked for a report.", "# Report\nUse template.md, then reply DONE.");
        Files.writeString(skills().resolve("pdf-report/template.md"), "Title: {{title}}");
        Files.writeString(skills().resolve("operator-secret.txt"), "hunter2");
        writeSkill("haiku", "Writes a haiku.", "Five, seven, five.");
        fake.enqueue(call("c1", "{\"action\":\"use\",\"name\":\"pdf-report\"}"),
                call("c2", "{\"action\":\"read\",\"name\":\"pdf-report\",\"path\":\"template.md\"}"),
                call("c3", "{\"action\":\"read\",\"name\":\"pdf-report\",\"path\":\"../operator-secret.txt\"}"),
                call("c4", "{\"action\":\"use\",\"name\":\"../pdf-report\"}"),
                Reply.text("DONE"));

        TurnOutcome outcome = agent(false).runTurn(turn("make a report of my notes"), listener, new Interrupt());

        assertThat(outcome).isEqualTo(new TurnOutcome.Final("DONE"));
        String offered = fake.requests().getFirst().tools().findValues("function").stream()
                .filter(f -> f.path("name").asText().equals("skill")).findFirst().orElseThrow().path("description").asText();
        assertThat(offered).contains("\nAvailable skills:\n- haiku: Writes a haiku.\n- pdf-report: Turns notes into a PDF report. Use when asked for a report.")
                .doesNotContain("Five, seven, five").doesNotContain("\"write\"");
        assertThat(results()).hasSize(4);
        assertThat(results().get(0)).isEqualTo("Skill pdf-report (folder " + skills().resolve("pdf-report").toAbsolutePath() + ")\n\n"
                + "# Report\nUse template.md, then reply DONE.\n\nFiles of this skill (read one with action \"read\" and its path):\n- template.md");
        assertThat(results().get(1)).isEqualTo("Title: {{title}}");
        assertThat(results().get(2)).isEqualTo("Error: '../operator-secret.txt' is outside the skill's folder; only its own files can be read");
        assertThat(results().get(3)).isEqualTo("Error: there is no skill '../pdf-report'; the skills are haiku, pdf-report");
        assertThat(listener.approvals).isEmpty();
    }

    @Test
    void write_whenReadOnly_isRefused_andNothingIsWritten() {
        fake.enqueue(call("c1", "{\"action\":\"write\",\"name\":\"notes\",\"content\":\"---\\nname: notes\\ndescription: d\\n---\\nbody\"}"),
                Reply.text("ok"));

        agent(false).runTurn(turn("remember how to take notes"), listener, new Interrupt());

        assertThat(results()).containsExactly("Error: skills are read-only here: the operator has not set agent.skills_writable");
        assertThat(skills()).doesNotExist();
        assertThat(listener.approvals).isEmpty();
    }

    @Test
    void write_whenWritable_isApproved_thenCreatesASkillTheNextTurnIsOffered_andAnInvalidOneIsRefused() {
        fake.enqueue(call("c1", "{\"action\":\"write\",\"name\":\"notes\",\"content\":\"---\\nname: notes\\n---\\nbody\"}"),
                call("c2", "{\"action\":\"write\",\"name\":\"notes\",\"content\":\"---\\nname: notes\\ndescription: Takes meeting notes.\\n---\\nUse bullets.\"}"),
                Reply.text("saved"));

        agent(true).runTurn(turn("remember how to take notes"), listener, new Interrupt());

        assertThat(results().get(0)).isEqualTo("Error: its front matter has no description:");
        assertThat(results().get(1)).isEqualTo("wrote the skill notes (" + skills().resolve("notes/SKILL.md").toAbsolutePath() + ")");
        assertThat(listener.approvals).extracting(a -> a.reason()).containsExactly(
                "writes the skill 'notes', which later conversations may follow", "writes the skill 'notes', which later conversations may follow");
        assertThat(listener.approvals.get(1).detail()).contains("description: Takes meeting notes.");

        fake.enqueue(Reply.text("hi"));
        agent(true).runTurn(turn("hello"), listener, new Interrupt());
        assertThat(fake.lastRequest().tools().toString()).contains("- notes: Takes meeting notes.").contains("\\\"write\\\" creates or replaces a skill");
    }

    @Test
    void write_deniedByThePerson_leavesNoSkill() {
        listener.approver = request -> ApprovalDecision.DENIED;
        fake.enqueue(call("c1", "{\"action\":\"write\",\"name\":\"notes\",\"content\":\"---\\nname: notes\\ndescription: d\\n---\\nbody\"}"),
                Reply.text("ok"));

        agent(true).runTurn(turn("remember"), listener, new Interrupt());

        assertThat(results()).containsExactly(ApprovalDecision.DENIED.toolResultText());
        assertThat(skills().resolve("notes")).doesNotExist();
    }
}
