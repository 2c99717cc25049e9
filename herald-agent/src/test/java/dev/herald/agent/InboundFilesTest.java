package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.FileLimits;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files a chat's user sends land in the conversation's workspace, where the agent's file tools read them; the model is
 * told each one's path, type and size. Names, types and sizes are the sender's claims and are not trusted.
 */
class InboundFilesTest {
    static final byte[] PDF = "%PDF-1.4\nQuarterly revenue: 42 million\n%%EOF\n".getBytes(StandardCharsets.UTF_8);
    static final byte[] ELF = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};

    @TempDir
    Path tmp;

    final FakeModelServer fake = FakeModelServer.start();
    final OpenAiCompatibleClient client = Harness.client(fake);
    final List<String> fetched = new CopyOnWriteArrayList<>();
    /** The platform's files by reference: the fetcher is the platform's edge. */
    final Map<String, byte[]> files = Map.of("BQAD-pdf", PDF, "BQAD-elf", ELF, "BQAD-big", new byte[4096]);
    final MediaFetcher telegram = (ref, max) -> {
        fetched.add(ref.ref());
        byte[] bytes = files.get(ref.ref());
        if (bytes == null) {
            throw new IOException("telegram - no such file");
        }
        if (bytes.length > max) {
            throw new IOException("telegram - file of " + bytes.length + " bytes is over the limit of " + max);
        }
        return new MediaFetcher.Fetched(bytes, ref.mimeType());
    };

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    private ToolRegistry registry(FileLimits limits) {
        ToolSettings settings = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file", "list_dir"))
                .withFileLimits(limits);
        return new ToolRegistry(settings, BuiltinTools.all(settings), List.of());
    }

    private ModelAgent agent(FileLimits limits) {
        return new ModelAgent(client, AgentSettings.DEFAULT, registry(limits), p -> p.equals("telegram") ? Optional.of(telegram) : Optional.empty());
    }

    private static TurnRequest turn(String text, MediaRef... refs) {
        return new TurnRequest("s1", "agent:main:telegram:dm:1", List.of(), text, true, "telegram", null, List.of(refs));
    }

    private Path inbox() {
        return registry(FileLimits.DEFAULT).context(turn("x"), new Interrupt()).workspace().resolve("inbox");
    }

    @Test
    void documentSentToTheBot_isSavedInTheWorkspace_andTheModelReadsItWithItsFileTool() throws Exception {
        MediaRef pdf = new MediaRef("document", "BQAD-pdf", "application/pdf", "Q3 report.pdf", PDF.length);
        fake.enqueue(Reply.toolCalls(new Reply.ToolCall("call_r", "read_file", "{\"path\":\"inbox/" + InboundFiles.id(pdf) + "-Q3_report.pdf\"}")),
                Reply.text("Revenue was 42 million."));

        TurnOutcome outcome = agent(FileLimits.DEFAULT).runTurn(turn("summarize this PDF", pdf), new RecordingListener(), new Interrupt());

        Path saved = inbox().resolve(InboundFiles.id(pdf) + "-Q3_report.pdf");
        assertThat(outcome).isEqualTo(new TurnOutcome.Final("Revenue was 42 million."));
        assertThat(saved).hasBinaryContent(PDF);
        assertThat(fake.requests().getFirst().lastUserMessage())
                .isEqualTo("summarize this PDF\n[file: " + saved + " (application/pdf, " + PDF.length + " bytes); read it with your file tools]");
        assertThat(fake.lastRequest().messages().getLast().content()).contains("Quarterly revenue: 42 million");
        assertThat(Files.getPosixFilePermissions(saved)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }

    @Test
    void hostileNameAndExecutableBytes_areSavedInertInsideTheInbox() throws Exception {
        MediaRef evil = new MediaRef("document", "BQAD-elf", "application/pdf", "../../.bashrc/..\\evil.sh", ELF.length);
        fake.enqueue(Reply.text("ok"));

        agent(FileLimits.DEFAULT).runTurn(turn("", evil), new RecordingListener(), new Interrupt());

        try (Stream<Path> saved = Files.list(inbox())) {
            assertThat(saved).singleElement().satisfies(f -> {
                assertThat(f.getFileName().toString()).isEqualTo(InboundFiles.id(evil) + "-evil.sh.download");
                assertThat(Files.isExecutable(f)).isFalse();
            });
        }
        assertThat(fake.lastRequest().lastUserMessage()).contains("application/octet-stream").doesNotContain("application/pdf")
                .doesNotContain("BQAD-elf");
        assertThat(tmp.resolve("workspaces")).isDirectoryRecursivelyContaining(p -> p.toString().endsWith(".download"));
        assertThat(Files.exists(tmp.resolve(".bashrc"))).isFalse();
    }

    @Test
    void fileOverTheLimit_isNotFetched_andTheModelIsToldToSaySo() {
        MediaRef big = new MediaRef("document", "BQAD-big", "application/zip", "big.zip", 4096);
        fake.enqueue(Reply.text("too big"));

        agent(new FileLimits(2048, 8192)).runTurn(turn("", big), new RecordingListener(), new Interrupt());

        assertThat(fetched).isEmpty();
        assertThat(fake.lastRequest().lastUserMessage())
                .isEqualTo("[file not saved: document \"big.zip\" (application/zip), 4,096 bytes is over the limit of 2,048 bytes per file; tell the user]");
        assertThat(inbox()).doesNotExist();
    }

    @Test
    void fileThatWouldFillTheWorkspace_isNotSaved() throws Exception {
        Path workspace = registry(FileLimits.DEFAULT).context(turn("x"), new Interrupt()).createWorkspace();
        Files.write(workspace.resolve("old.bin"), new byte[7000]);
        MediaRef undeclared = new MediaRef("document", "BQAD-big", null, "data.bin", -1);
        fake.enqueue(Reply.text("full"));

        agent(new FileLimits(8192, 8192)).runTurn(turn("", undeclared), new RecordingListener(), new Interrupt());

        assertThat(fake.lastRequest().lastUserMessage()).startsWith("[file not saved: document \"data.bin\" is over the size limit");
        assertThat(inbox()).doesNotExist();
    }

    @Test
    void sanitise_keepsOnlyASafeLastSegment() {
        assertThat(InboundFiles.sanitise("../../etc/passwd")).isEqualTo("passwd");
        assertThat(InboundFiles.sanitise("C:\\Users\\a\\..hidden.txt")).isEqualTo("hidden.txt");
        assertThat(InboundFiles.sanitise("résumé 2024.pdf")).isEqualTo("r_sum__2024.pdf");
        assertThat(InboundFiles.sanitise("...")).isEmpty();
        assertThat(InboundFiles.sanitise("a\u0000b\nc.txt")).isEqualTo("a_b_c.txt");
        assertThat(InboundFiles.sanitise("x".repeat(300) + ".pdf")).hasSize(80).endsWith(".pdf");
    }
}
