package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** {@code write_file}: writes (or appends) text, creating parent directories. Dangerous outside the workspace. */
public final class WriteFileTool implements Tool {
    private static final JsonNode SCHEMA = Args.schema(new String[] {"path", "content"},
            "path", "string", "file path; relative paths are inside the session's workspace",
            "content", "string", "the text to write",
            "append", "boolean", "optional: add to the end instead of replacing the file");

    private final ToolSettings settings;

    public WriteFileTool(ToolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "write_file";
    }

    @Override
    public String description() {
        return "Write text to a file (replacing it, or appending with append=true). Parent directories are created. Paths "
                + "outside the session's workspace need the user's approval.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        Path path = context.resolve(Args.string(args, "path", ""));
        return context.inAnotherWorkspace(path, settings.workspaceRoot()) ? Danger.NONE : Danger.outsideWorkspace(context, path, "writes");
    }

    @Override
    public String summarize(JsonNode args) {
        String content = Args.string(args, "content", "");
        return (Args.flag(args, "append", false) ? "append " : "write ") + Texts.number(content.length()) + " characters to "
                + Texts.line(Args.string(args, "path", ""), 200);
    }

    /** The resolved path, the size, and the first and last lines of the content. */
    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        String content = Args.string(args, "content", "");
        boolean append = Args.flag(args, "append", false);
        return (append ? "Append to " : "Write (replacing it) ") + Paths.shown(context, context.resolve(Args.string(args, "path", "")))
                + "\n" + Preview.of(content);
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        Path path = context.resolve(Args.string(args, "path"));
        if (context.inAnotherWorkspace(path, settings.workspaceRoot())) {
            return ToolContext.anotherWorkspace(path);
        }
        String content = Args.string(args, "content");
        boolean append = Args.flag(args, "append", false);
        try {
            if (context.insideWorkspace(path)) {
                context.createWorkspace();
            }
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            if (append) {
                Files.writeString(path, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } else {
                Files.writeString(path, content, StandardCharsets.UTF_8);
            }
            return ToolResult.ok((append ? "appended " : "wrote ") + Texts.number(content.length()) + " characters to " + path);
        } catch (IOException e) {
            return ToolResult.error("could not write " + path + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }
}
