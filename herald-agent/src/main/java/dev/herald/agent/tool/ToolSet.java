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
                list.add(new ToolSpec(tool.name(), tool.description(), tool.parameters()));
            }
        }
        this.byName = Collections.unmodifiableMap(map);
        this.specs = List.copyOf(list);
    }

    /** These tools without those named in {@code names} (a caller's tools of the same name hide Herald's). */
    public ToolSet without(java.util.Set<String> names) {
        if (names.isEmpty() || names.stream().noneMatch(byName::containsKey)) {
            return this;
        }
        return new ToolSet(byName.values().stream().filter(t -> !names.contains(t.name())).toList());
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
