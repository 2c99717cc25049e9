package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code list_dir}: a directory's entries, sorted, directories marked with a slash, files with their size. Dangerous outside the workspace, where it could read secrets such as Herald's own config. */
public final class ListDirTool implements Tool {
    private static final int MAX_ENTRIES = 500;
    private static final JsonNode SCHEMA = Args.schema(new String[0],
            "path", "string", "directory path; default: the session's workspace");

    private final ToolSettings settings;

    public ListDirTool(ToolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "list_dir";
    }

    @Override
    public String description() {
        return "List a directory: one entry per line, directories end with '/', files show their size in bytes.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        Path dir = context.resolve(Args.string(args, "path", "."));
        return context.inAnotherWorkspace(dir, settings.workspaceRoot()) ? Danger.NONE : Danger.outsideWorkspace(context, dir, "lists");
    }

    @Override
    public String summarize(JsonNode args) {
        return "list " + Texts.line(Args.string(args, "path", "."), 200);
    }

    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        return "List " + Paths.shown(context, context.resolve(Args.string(args, "path", ".")));
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        Path dir = context.resolve(Args.string(args, "path", "."));
        if (context.inAnotherWorkspace(dir, settings.workspaceRoot())) {
            return ToolContext.anotherWorkspace(dir);
        }
        if (dir.equals(context.workspace().toAbsolutePath().normalize()) && !Files.exists(dir)) {
            return ToolResult.ok(dir + " (empty workspace)");
        }
        List<String> entries = new ArrayList<>();
        int total = 0;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path entry : stream) {
                total++;
                if (entries.size() < MAX_ENTRIES) {
                    entries.add(Files.isDirectory(entry) ? entry.getFileName() + "/"
                            : entry.getFileName() + "  " + Texts.number(Files.size(entry)));
                }
            }
        } catch (NoSuchFileException e) {
            return ToolResult.error(dir + " does not exist");
        } catch (IOException e) {
            return ToolResult.error("could not list " + dir + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        entries.sort(String::compareTo);
        String more = total > MAX_ENTRIES ? "\n…[" + Texts.number(total - MAX_ENTRIES) + " more entries]" : "";
        return ToolResult.ok(dir + " (" + Texts.number(total) + " entries)\n" + String.join("\n", entries) + more);
    }
}
