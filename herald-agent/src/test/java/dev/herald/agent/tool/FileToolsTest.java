package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.agent.Interrupt;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** read_file, write_file, list_dir and todo in a session workspace. */
class FileToolsTest {
    @TempDir
    Path workspace;
    @TempDir
    Path outside;

    /** The workspaces' folder: neither the test's workspace nor the folder outside it is below it. */
    private final ToolSettings settings = ToolSettings.defaults(Path.of("/nonexistent/herald-workspaces"));

    private ToolContext context() {
        return new ToolContext("s", "scope", "p", workspace, new Interrupt());
    }

    private static ObjectNode args() {
        return Args.JSON.createObjectNode();
    }

    @Test
    void writeThenRead_relativePathLandsInTheWorkspace() {
        ToolResult written = new WriteFileTool(settings).execute(args().put("path", "dir/a.txt").put("content", "one\ntwo\nthree\n"), context());
        ToolResult read = new ReadFileTool(settings).execute(args().put("path", "dir/a.txt").put("offset", 2).put("limit", 1), context());

        assertThat(written.text()).isEqualTo("wrote 14 characters to " + workspace.resolve("dir/a.txt"));
        assertThat(read.text()).isEqualTo(workspace.resolve("dir/a.txt") + " (14 bytes; lines 2-2)\ntwo\n…[cut off: continue with offset 3]");
    }

    @Test
    void read_missingFileOrBinary_isAnErrorTheModelCanRead() throws Exception {
        Files.write(workspace.resolve("bin"), new byte[] {1, 0, 2});

        assertThat(new ReadFileTool(settings).execute(args().put("path", "nope.txt"), context()).text())
                .isEqualTo("Error: " + workspace.resolve("nope.txt") + " does not exist");
        assertThat(new ReadFileTool(settings).execute(args().put("path", "bin"), context()).text()).contains("looks like a binary file");
    }

    @Test
    void write_isDangerousOnlyOutsideTheWorkspaceIncludingThroughASymlink() throws Exception {
        WriteFileTool write = new WriteFileTool(settings);
        Files.createSymbolicLink(workspace.resolve("escape"), outside);

        assertThat(write.danger(args().put("path", "in.txt"), context()).dangerous()).isFalse();
        assertThat(write.danger(args().put("path", outside.resolve("x").toString()), context()))
                .isEqualTo(Danger.because("writes outside the workspace"));
        assertThat(write.danger(args().put("path", "escape/x.txt"), context()).dangerous()).isTrue();
        assertThat(write.danger(args().put("path", "../sneaky.txt"), context()).dangerous()).isTrue();
    }

    @Test
    void listDir_showsDirectoriesWithASlashAndFilesWithTheirSize() throws Exception {
        Files.createDirectories(workspace.resolve("sub"));
        Files.writeString(workspace.resolve("f.txt"), "12345");

        assertThat(new ListDirTool(settings).execute(args(), context()).text()).isEqualTo(workspace + " (2 entries)\nf.txt  5\nsub/");
    }

    @Test
    void todo_keepsItsListInTheWorkspaceAcrossCalls() {
        TodoTool todo = new TodoTool();
        todo.execute(args().put("action", "add").put("text", "write tests"), context());
        todo.execute(args().put("action", "add").put("text", "ship it"), context());
        todo.execute(args().put("action", "done").put("number", 1), context());

        assertThat(new TodoTool().execute(args().put("action", "list"), context()).text()).isEqualTo("1. [x] write tests\n2. [ ] ship it");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> todo.execute(args().put("action", "done").put("number", 7), context()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("there is no item 7 (the list has 2)");
        assertThat(Files.exists(workspace.resolve(TodoTool.FILE))).isTrue();
    }
}
