package dev.herald.platforms.signal;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE;
import static dev.herald.platforms.signal.FakeSignalCli.ALICE_UUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files both ways through the daemon, without a shared file system: an attachment a user sends is fetched with
 * {@code getAttachment} and lands in the conversation's workspace, where the real agent's file tool reads it; a file the
 * agent sends goes out as a data URI in {@code send}'s {@code attachments}, after the reply's text.
 */
class SignalFilesTest {
    static final byte[] PDF = "%PDF-1.4\nQuarterly revenue: 42 million\n%%EOF\n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    final FakeSignalCli signal = new FakeSignalCli();
    @RegisterExtension
    final GatewayFixture herald = signal.herald(ALICE_UUID);
    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "files-model").withMaxRetries(0));

    @AfterEach
    void stop() {
        client.close();
        model.close();
    }

    private TurnState stateOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().map(TurnRecord::state).orElse(null);
    }

    @Test
    void anAttachmentSentToTheBot_isFetchedThroughTheDaemon_savedInTheWorkspace_andReadByTheAgentsFileTool() throws Exception {
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file"));
        herald.agentOverride(new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(tools, BuiltinTools.all(tools), List.of()),
                p -> p.equals("signal") && herald.current instanceof MediaFetcher f ? Optional.of(f) : Optional.empty()));
        signal.attachments.put("Gzm6lhCUAeQy4k7Cnfd0.pdf", PDF);
        model.defaultReply(r -> {
            Matcher m = Pattern.compile("\\[file: (\\S+) \\(").matcher(r.lastUserMessage() == null ? "" : r.lastUserMessage());
            return m.find() && r.messages().stream().noneMatch(x -> "tool".equals(x.role()))
                    ? Reply.toolCalls(new Reply.ToolCall("call_r", "read_file", "{\"path\":\"" + m.group(1) + "\"}"))
                    : Reply.text("Revenue was 42 million.");
        });
        herald.start();

        long ts = signal.nextTimestamp();
        ObjectNode data = FakeSignalCli.data(ts, "summarize this");
        data.withArray("attachments").addObject().put("contentType", "application/pdf").put("filename", "Q3 report.pdf")
                .put("id", "Gzm6lhCUAeQy4k7Cnfd0.pdf").put("size", PDF.length).putNull("width").putNull("height").putNull("caption")
                .put("uploadTimestamp", ts - 100);
        signal.deliver(FakeSignalCli.envelope(ALICE_UUID, ALICE, ts, data));

        await().atMost(WAIT).until(() -> stateOf("summarize this") == TurnState.DELIVERED);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("Revenue was 42 million.");
        assertThat(signal.calls("getAttachment")).singleElement().satisfies(c -> {
            assertThat(c.params().path("id").asText()).isEqualTo("Gzm6lhCUAeQy4k7Cnfd0.pdf");
            assertThat(c.params().path("recipient").asText()).isEqualTo(ALICE_UUID);
        });
        String told = model.requests().getFirst().lastUserMessage();
        Matcher m = Pattern.compile("\\[file: (\\S+) \\(application/pdf, " + PDF.length + " bytes\\)").matcher(told);
        assertThat(m.find()).as(told).isTrue();
        assertThat(Path.of(m.group(1))).hasBinaryContent(PDF).startsWith(tmp.resolve("workspaces"));
        assertThat(model.lastRequest().messages().getLast().content()).as("the tool read the file").contains("Quarterly revenue: 42 million");
    }

    @Test
    void aFileTheAgentSends_goesOutAsADataUriAttachment_afterTheText_withItsCaption() throws Exception {
        Path p = tmp.resolve("summary.pdf");
        Files.write(p, PDF);
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", new OutboundFile(p.toRealPath().toString(), "summary.pdf", "application/pdf",
                PDF.length, "Q3 **summary**"));

        signal.dm(ALICE_UUID, ALICE, "send the summary");

        await().atMost(WAIT).until(() -> stateOf("send the summary") == TurnState.DELIVERED);
        List<JsonNode> sends = signal.sendsTo(ALICE_UUID);
        assertThat(sends).hasSize(2);
        assertThat(sends.get(0).path("message").asText()).isEqualTo("Here is the summary.");
        assertThat(sends.get(0).has("attachments")).isFalse();
        assertThat(sends.get(1).path("message").asText()).isEqualTo("Q3 summary");
        assertThat(sends.get(1).path("textStyle")).extracting(JsonNode::asText).containsExactly("3:7:BOLD");
        assertThat(sends.get(1).path("attachments")).singleElement().satisfies(a -> {
            String uri = a.asText();
            assertThat(uri).startsWith("data:application/pdf;filename=summary.pdf;base64,");
            assertThat(Base64.getDecoder().decode(uri.substring(uri.indexOf(",") + 1))).isEqualTo(PDF);
        });
    }

    @Test
    void anAttachmentTheDaemonNoLongerHas_isToldToTheModel_andTheTurnStillAnswers() {
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file"));
        herald.agentOverride(new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(tools, BuiltinTools.all(tools), List.of()),
                p -> p.equals("signal") && herald.current instanceof MediaFetcher f ? Optional.of(f) : Optional.empty()));
        model.enqueue(Reply.text("I could not open it."));
        herald.start();

        long ts = signal.nextTimestamp();
        ObjectNode data = FakeSignalCli.data(ts, "read this");
        data.withArray("attachments").addObject().put("contentType", "application/pdf").put("filename", "gone.pdf")
                .put("id", "gone0000000000000000.pdf").put("size", 10);
        signal.deliver(FakeSignalCli.envelope(ALICE_UUID, ALICE, ts, data));

        await().atMost(WAIT).until(() -> stateOf("read this") == TurnState.DELIVERED);
        assertThat(signal.textsTo(ALICE_UUID)).containsExactly("I could not open it.");
        assertThat(model.requests().getFirst().lastUserMessage()).contains("gone.pdf").doesNotContain("gone0000000000000000.pdf|");
    }
}
