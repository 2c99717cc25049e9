package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** {@code read_file}: a text file's lines, from an optional line offset, up to the result limit. Dangerous outside the workspace, where it could read secrets such as Herald's own config. */
public final class ReadFileTool implements Tool {
    private static final JsonNode SCHEMA = Args.schema(new String[] {"path"},
            "path", "string", "file path; relative paths are inside the session's workspace",
            "offset", "integer", "optional: first line to return (1-based, default 1)",
            "limit", "integer", "optional: most lines to return");

    private final ToolSettings settings;

    public ReadFileTool(ToolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "read_file";
    }

    @Override
    public String description() {
        return "Read a text file. Returns its lines (from 'offset', at most 'limit'); long files are cut off with a note saying "
                + "where to continue.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        Path path = context.resolve(Args.string(args, "path", "."));
        return context.inAnotherWorkspace(path, settings.workspaceRoot()) ? Danger.NONE : Danger.outsideWorkspace(context, path, "reads");
    }

    @Override
    public String summarize(JsonNode args) {
        return "read " + Texts.line(Args.string(args, "path", ""), 200);
    }

    @Override
    public String approvalText(JsonNode args, ToolContext context) {
        return "Read " + Paths.shown(context, context.resolve(Args.string(args, "path", ".")));
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        Path path = context.resolve(Args.string(args, "path"));
        if (context.inAnotherWorkspace(path, settings.workspaceRoot())) {
            return ToolContext.anotherWorkspace(path);
        }
        long offset = Math.max(1, Args.number(args, "offset", 1));
        long limit = Math.max(1, Args.number(args, "limit", Long.MAX_VALUE));
        try {
            if (Files.isDirectory(path)) {
                return ToolResult.error(path + " is a directory; use list_dir");
            }
            long size = Files.size(path);
            if (looksBinary(path)) {
                return ToolResult.error(path + " looks like a binary file (" + Texts.number(size) + " bytes); not shown");
            }
            return ToolResult.ok(read(path, size, offset, limit));
        } catch (NoSuchFileException e) {
            return ToolResult.error(path + " does not exist");
        } catch (IOException e) {
            return ToolResult.error("could not read " + path + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    private String read(Path path, long size, long offset, long limit) throws IOException {
        StringBuilder out = new StringBuilder();
        long line = 0;
        long shown = 0;
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader reader = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(path), decoder))) {
            String text;
            while ((text = reader.readLine()) != null) {
                line++;
                if (line < offset) {
                    continue;
                }
                if (shown >= limit || out.length() + text.length() + 1 > settings.resultLimit()) {
                    return header(path, size, offset, shown) + out + "…[cut off: continue with offset " + line + "]";
                }
                out.append(text).append('\n');
                shown++;
            }
        }
        return header(path, size, offset, shown) + out;
    }

    private static String header(Path path, long size, long offset, long shown) {
        return path + " (" + Texts.number(size) + " bytes; lines " + offset + "-" + (offset + shown - 1) + ")\n";
    }

    private static boolean looksBinary(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            byte[] start = in.readNBytes(4096);
            for (byte b : start) {
                if (b == 0) {
                    return true;
                }
            }
            return false;
        }
    }
}
