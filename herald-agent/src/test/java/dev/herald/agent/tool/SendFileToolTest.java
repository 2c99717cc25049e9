package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.platform.OutboundFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** send_file hands a workspace file to the gateway; nothing outside the workspace, through a link neither. */
class SendFileToolTest {
    @TempDir
    Path tmp;

    final List<OutboundFile> sent = new CopyOnWriteArrayList<>();

    private ToolContext context() throws Exception {
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        return new ToolContext("s1", "agent:main:telegram:dm:1", "telegram", workspace, new Interrupt(), sent::add);
    }

    private ToolResult call(ToolContext c, String json) throws Exception {
        return new SendFileTool().execute(new ObjectMapper().readTree(json), c);
    }

    @Test
    void fileInTheWorkspace_isHandedOverWithTypeSizeAndCaption() throws Exception {
        ToolContext c = context();
        Files.write(c.workspace().resolve("chart.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10});

        ToolResult r = call(c, "{\"path\":\"chart.png\",\"caption\":\"the chart\"}");

        assertThat(r.status()).isEqualTo(ToolResult.Status.OK);
        assertThat(sent).singleElement().satisfies(f -> {
            assertThat(f.name()).isEqualTo("chart.png");
            assertThat(f.mimeType()).isEqualTo("image/png");
            assertThat(f.size()).isEqualTo(8);
            assertThat(f.caption()).isEqualTo("the chart");
        });
    }

    @Test
    void pathOutsideTheWorkspace_orALinkOutOfIt_isRefused_andNothingIsSent() throws Exception {
        ToolContext c = context();
        Path secret = Files.writeString(tmp.resolve("config.yaml"), "token: s3cret");
        Files.createSymbolicLink(c.workspace().resolve("innocent.txt"), secret);
        Files.createSymbolicLink(c.workspace().resolve("dir"), tmp);

        assertThat(call(c, "{\"path\":\"" + secret + "\"}").status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(call(c, "{\"path\":\"../config.yaml\"}").status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(call(c, "{\"path\":\"innocent.txt\"}").status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(call(c, "{\"path\":\"dir/config.yaml\"}").status()).isEqualTo(ToolResult.Status.ERROR);
        assertThat(sent).isEmpty();
    }
}
