package dev.herald.platforms.waha;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.net.URI;
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
 * Files both ways: a file a person sends is a reference to the URL WAHA stored it at, fetched with the API key from
 * WAHA's own {@code /api/files/} only, and lands in the conversation's workspace where the real agent's file tool reads
 * it; a file the agent sends goes to {@code sendFile} (or {@code sendImage} for a picture) as base64, after the reply's
 * text, with its caption in WhatsApp formatting.
 */
class WahaMediaTest {
    static final String ALICE = WahaWebhookTest.ALICE;
    static final String CHAT = ALICE + "@c.us";
    static final byte[] PDF = "%PDF-1.4\nQuarterly revenue: 42 million\n%%EOF\n".getBytes(StandardCharsets.UTF_8);
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};

    @TempDir
    Path tmp;

    final FakeWaha waha = new FakeWaha();
    @RegisterExtension
    final GatewayFixture herald = waha.herald(ALICE);
    private final FakeModelServer model = FakeModelServer.start();
    private final OpenAiCompatibleClient client = new OpenAiCompatibleClient(ModelSettings.of(model.baseUrl(), "files-model").withMaxRetries(0));

    @AfterEach
    void stop() {
        client.close();
        model.close();
    }

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aFileSentToTheNumber_isFetchedFromWaha_savedInTheWorkspace_andReadByTheAgentsFileTool() {
        ToolSettings tools = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file"));
        herald.agentOverride(new ModelAgent(client, AgentSettings.DEFAULT, new ToolRegistry(tools, BuiltinTools.all(tools), List.of()),
                p -> p.equals("waha") && herald.current instanceof MediaFetcher f ? Optional.of(f) : Optional.empty()));
        model.defaultReply(r -> {
            Matcher m = Pattern.compile("\\[file: (\\S+) \\(").matcher(r.lastUserMessage() == null ? "" : r.lastUserMessage());
            return m.find() && r.messages().stream().noneMatch(x -> "tool".equals(x.role()))
                    ? Reply.toolCalls(new Reply.ToolCall("call_r", "read_file", "{\"path\":\"" + m.group(1) + "\"}"))
                    : Reply.text("Revenue was 42 million.");
        });
        herald.start();

        var msg = waha.withFile(FakeWaha.dm(ALICE, "3EB0MMM1", "summarize this"), "false_" + CHAT + "_3EB0MMM1.pdf", "application/pdf", PDF);
        assertThat(waha.post(FakeWaha.message(msg))).isEqualTo(200);

        await().atMost(WAIT).until(() -> turnOf("summarize this").state() == TurnState.DELIVERED);
        assertThat(waha.sentTo(CHAT)).extracting(FakeWaha.Call::text).containsExactly("Revenue was 42 million.");
        assertThat(waha.downloads).containsExactly(FakeWaha.SESSION + "/false_" + CHAT + "_3EB0MMM1.pdf");
        String told = model.requests().getFirst().lastUserMessage();
        Matcher m = Pattern.compile("\\[file: (\\S+) \\(application/pdf, " + PDF.length + " bytes\\)").matcher(told);
        assertThat(m.find()).as(told).isTrue();
        assertThat(Path.of(m.group(1))).hasBinaryContent(PDF).startsWith(tmp.resolve("workspaces"));
        assertThat(model.lastRequest().messages().getLast().content()).as("the tool read the file").contains("Quarterly revenue: 42 million");
    }

    @Test
    void aMediaUrlOffWahasOwnFiles_isNotFetched_andTheKeyNotSent() {
        herald.start();
        waha.files.put(FakeWaha.SESSION + "/a.png", new Object[] {PNG, "image/png"});
        MediaFetcher fetcher = waha.fetcher();

        for (String url : List.of("http://localhost:" + waha.port() + "/api/files/default/a.png", // the fake itself, but not url's host
                "http://127.0.0.1:" + (waha.port() == 65535 ? 1 : waha.port() + 1) + "/api/files/default/a.png", // another port
                "https://127.0.0.1:" + waha.port() + "/api/files/default/a.png", // another scheme
                waha.url() + "/api/sessions/default", // WAHA, but not a file
                waha.url() + "/api/files/../sessions/default",
                waha.url() + "/api/files/%2e%2e/sessions/default",
                "http://user@127.0.0.1:" + waha.port() + "/api/files/default/a.png",
                "https://169.254.169.254/api/files/latest/meta-data",
                "file:///etc/passwd",
                "not a url at all")) {
            assertThatThrownBy(() -> fetcher.fetch(new MessageEvent.MediaRef("photo", url, "image/png"), 1024)).as(url)
                    .isInstanceOf(IOException.class).hasMessageContaining("not under WAHA's own").hasMessageNotContaining(FakeWaha.API_KEY);
        }
        assertThat(waha.downloads).isEmpty();
        assertThat(WahaApi.ownFileUrl(waha.url() + "/api/files/default/a.png", URI.create(waha.url()))).isTrue();
    }

    @Test
    void aFileOverTheLimit_isRefused() throws Exception {
        herald.start();
        waha.files.put(FakeWaha.SESSION + "/big.pdf", new Object[] {PDF, "application/pdf"});

        var ref = new MessageEvent.MediaRef("document", waha.url() + "/api/files/default/big.pdf", "application/pdf");
        assertThatThrownBy(() -> waha.fetcher().fetch(ref, 8)).isInstanceOf(IOException.class).hasMessageContaining("8-byte limit");
        assertThat(waha.fetcher().fetch(ref, 1024).bytes()).isEqualTo(PDF);
    }

    @Test
    void filesTheAgentSends_goAsBase64_aPdfBySendFile_andAPngBySendImage_afterTheText_withTheirCaptions() throws Exception {
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", PDF, "application/pdf", null),
                file("chart.png", PNG, "image/png", "the **chart**"));

        waha.post(FakeWaha.message(FakeWaha.dm(ALICE, "3EB0MMM2", "summarize it")));
        await().atMost(WAIT).until(() -> turnOf("summarize it").state() == TurnState.DELIVERED);

        var sent = waha.sentTo(CHAT);
        assertThat(sent).extracting(FakeWaha.Call::method).containsExactly("sendText", "sendFile", "sendImage");
        assertThat(sent.get(0).text()).isEqualTo("Here is the summary.");
        var pdf = sent.get(1).body().path("file");
        assertThat(pdf.path("mimetype").asText()).isEqualTo("application/pdf");
        assertThat(pdf.path("filename").asText()).isEqualTo("summary.pdf");
        assertThat(Base64.getDecoder().decode(pdf.path("data").asText())).isEqualTo(PDF);
        var png = sent.get(2).body();
        assertThat(Base64.getDecoder().decode(png.path("file").path("data").asText())).isEqualTo(PNG);
        assertThat(png.path("caption").asText()).as("the caption, in WhatsApp's formatting").isEqualTo("the *chart*");
    }

    @Test
    void onWahaCore_aFileFailsForGood_namingWahaPlus_andIsNotRetried() throws Exception {
        waha.plus = false;
        herald.start();
        var message = new dev.herald.core.platform.OutboundMessage(dev.herald.core.platform.ChatTarget.of(CHAT), "the chart",
                dev.herald.core.platform.MessageKind.REPLY, null, null, 1, 1, null, file("chart.png", PNG, "image/png", null));

        var result = herald.current.send(message);

        assertThat(result.success()).isFalse();
        assertThat(result.retryable()).as("the session works: trying again would not help").isFalse();
        assertThat(result.error()).contains("available only in Plus").contains("needs WAHA Plus").doesNotContain(FakeWaha.API_KEY);
        waha.status = "STARTING";
        var waiting = herald.current.send(message);
        assertThat(waiting.retryable()).as("a 422 while the session is not working: the reply waits").isTrue();
        assertThat(waiting.error()).contains("STARTING");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = tmp.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
