package dev.herald.agent.tool;

import java.util.List;

/** The built-in tools, in the order they are offered. */
public final class BuiltinTools {
    private BuiltinTools() {
    }

    public static List<Tool> all(ToolSettings settings) {
        return List.of(new ShellTool(settings), new ReadFileTool(settings), new WriteFileTool(), new ListDirTool(),
                new HttpGetTool(settings), new TodoTool());
    }
}
