package dev.herald.agent.tool;

import java.util.List;

/** The built-in tools, in the order they are offered. */
public final class BuiltinTools {
    /** The names of {@link #all}'s tools, for checking tool lists in the configuration without building the tools. */
    public static final List<String> NAMES = List.of("shell", "read_file", "write_file", "list_dir", "http_get", "todo", "send_file");

    private BuiltinTools() {
    }

    /** The built-in tools that need nothing but the settings ({@code schedule} needs the scheduled jobs: {@link ScheduleTool}). */
    public static List<Tool> all(ToolSettings settings) {
        return List.of(new ShellTool(settings), new ReadFileTool(settings), new WriteFileTool(settings), new ListDirTool(settings),
                new HttpGetTool(settings), new TodoTool(), new SendFileTool());
    }
}
