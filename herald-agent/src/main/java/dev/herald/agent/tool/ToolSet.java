package dev.herald.agent.tool;

import dev.herald.agent.model.ToolSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tools of one turn, by name, in the order they are offered to the model. Immutable. */
public final class ToolSet {
    public static final ToolSet EMPTY = new ToolSet(List.of());

    private final Map<String, Tool> byName;
    private final List<ToolSpec> specs;

    ToolSet(List<Tool> tools) {
        Map<String, Tool> map = new LinkedHashMap<>();
        List<ToolSpec> list = new ArrayList<>(tools.size());
        for (Tool tool : tools) {
            if (map.putIfAbsent(tool.name(), tool) == null) {
                list.add(specOf(tool));
            }
        }
        this.byName = Collections.unmodifiableMap(map);
        this.specs = List.copyOf(list);
    }

    /** The spec a tool had last time when its name, description and schema object are the same: its encoding is kept. */
    private record Memo(String name, String description, com.fasterxml.jackson.databind.JsonNode schema, ToolSpec spec) {
    }

    /** One memo per tool object; forgotten with the tool (an MCP server's tools are replaced when it reconnects). */
    private static final Map<Tool, Memo> SPECS = Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static ToolSpec specOf(Tool tool) {
        String name = tool.name();
        String description = tool.description();
        com.fasterxml.jackson.databind.JsonNode schema = tool.parameters();
        Memo memo = SPECS.get(tool);
        if (memo != null && memo.name().equals(name) && java.util.Objects.equals(memo.description(), description) && memo.schema() == schema) {
            return memo.spec();
        }
        ToolSpec spec = new ToolSpec(name, description, schema);
        SPECS.put(tool, new Memo(name, description, schema, spec));
        return spec;
    }

    /** These tools without those named in {@code names} (a caller's tools of the same name hide Herald's). */
    public ToolSet without(java.util.Set<String> names) {
        if (names.isEmpty() || names.stream().noneMatch(byName::containsKey)) {
            return this;
        }
        return new ToolSet(byName.values().stream().filter(t -> !names.contains(t.name())).toList());
    }

    /** These tools without those whose every call asks for approval ({@link Tool#alwaysAsks}). */
    public ToolSet withoutAlwaysAsking() {
        return byName.values().stream().noneMatch(Tool::alwaysAsks) ? this
                : new ToolSet(byName.values().stream().filter(t -> !t.alwaysAsks()).toList());
    }

    /** These tools that {@code other} has too, in this set's order. */
    public ToolSet retain(ToolSet other) {
        return new ToolSet(byName.values().stream().filter(t -> other.byName.containsKey(t.name())).toList());
    }

    /** The tool called {@code name}, or null. */
    public Tool find(String name) {
        return byName.get(name);
    }

    public List<ToolSpec> specs() {
        return specs;
    }

    /** The names, comma-separated, for "unknown tool" results and logs. */
    public String names() {
        return byName.isEmpty() ? "(none)" : String.join(", ", byName.keySet());
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    public int size() {
        return byName.size();
    }
}
