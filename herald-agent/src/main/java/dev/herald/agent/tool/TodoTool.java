package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code todo}: the session's scratch list, kept as {@code .herald-todo.md} in its workspace (so it survives
 * restarts and the user can read it): one {@code - [ ] item} or {@code - [x] item} per line. Not dangerous.
 * Calls are serialized per tool instance (the list is tiny).
 */
public final class TodoTool implements Tool {
    static final String FILE = ".herald-todo.md";
    private static final JsonNode SCHEMA = Args.schema(new String[] {"action"},
            "action", "string", "one of: list, add, done, remove, clear",
            "text", "string", "for add: the item",
            "number", "integer", "for done and remove: the item's number as shown by list");

    @Override
    public String name() {
        return "todo";
    }

    @Override
    public String description() {
        return "A scratch to-do list for this conversation, kept between turns: list, add an item, mark item N done, remove item "
                + "N, or clear the list. Use it to keep track of multi-step work.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return Danger.NONE;
    }

    @Override
    public String summarize(JsonNode args) {
        return "todo " + Args.string(args, "action", "list") + " " + Texts.line(Args.string(args, "text", ""), 100);
    }

    @Override
    public synchronized ToolResult execute(JsonNode args, ToolContext context) {
        Path file = context.workspace().resolve(FILE);
        try {
            List<String> items = Files.exists(file) ? new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8)) : new ArrayList<>();
            items.removeIf(String::isBlank);
            String action = Args.string(args, "action").strip().toLowerCase(java.util.Locale.ROOT);
            switch (action) {
                case "list" -> {
                    return ToolResult.ok(render(items));
                }
                case "add" -> items.add("- [ ] " + Texts.line(Args.string(args, "text"), 500));
                case "done" -> items.set(index(args, items), items.get(index(args, items)).replaceFirst("^- \\[ \\]", "- [x]"));
                case "remove" -> items.remove(index(args, items));
                case "clear" -> items.clear();
                default -> {
                    return ToolResult.error("unknown action '" + action + "'; use list, add, done, remove or clear");
                }
            }
            context.createWorkspace();
            Files.write(file, items, StandardCharsets.UTF_8);
            return ToolResult.ok(render(items));
        } catch (IOException e) {
            return ToolResult.error("could not update the to-do list " + file + " (" + e.getMessage() + ")");
        }
    }

    private static int index(JsonNode args, List<String> items) {
        long number = Args.number(args, "number", -1);
        if (number < 1 || number > items.size()) {
            throw new IllegalArgumentException("there is no item " + number + " (the list has " + items.size() + ")");
        }
        return (int) number - 1;
    }

    private static String render(List<String> items) {
        if (items.isEmpty()) {
            return "The to-do list is empty.";
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            out.append(i + 1).append(". ").append(items.get(i).substring(Math.min(2, items.get(i).length()))).append('\n');
        }
        return out.toString().stripTrailing();
    }
}
