package dev.herald.agent.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.transcript.ToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds tool calls from streamed deltas, tolerating what local servers send. A delta belongs to the call
 * with the same id if that id was seen; else to the call at its {@code index}; else a new id starts a new
 * call; else (no id, no index) it continues the latest call, unless it names a different tool than a call
 * that already has arguments. The name may arrive late or be repeated on every delta; arguments are
 * concatenated as text (an object is taken as the whole arguments) and never parsed here. Calls without
 * an id get {@code call_<n>}, n being the call's position, so the same stream gives the same ids.
 */
final class ToolCallAssembler {

    private static final class Slot {
        String id;
        String name;
        final StringBuilder arguments = new StringBuilder();

        boolean isEmpty() {
            return id == null && (name == null || name.isEmpty()) && arguments.isEmpty();
        }
    }

    private final List<Slot> slots = new ArrayList<>();
    private final Map<Integer, Slot> byIndex = new HashMap<>();
    private final Map<String, Slot> byId = new HashMap<>();

    /** One entry of a streamed {@code delta.tool_calls} array. */
    void acceptDelta(JsonNode delta) {
        if (delta == null || !delta.isObject()) {
            return;
        }
        String id = nonBlank(Wire.text(delta.get("id")));
        JsonNode function = delta.path("function");
        String name = nonBlank(Wire.text(function.get("name")));
        JsonNode indexNode = delta.get("index");
        Integer index = indexNode != null && indexNode.canConvertToInt() ? indexNode.asInt() : null;
        Slot slot = slotFor(id, index, name);
        if (id != null && slot.id == null) {
            slot.id = id;
            byId.put(id, slot);
        }
        if (name != null && !name.equals(slot.name)) {
            slot.name = slot.name == null ? name : slot.name + name;
        }
        appendArguments(slot, function.get("arguments"));
    }

    /** One entry of a non-streamed {@code message.tool_calls} array. */
    void acceptWhole(JsonNode call) {
        Slot slot = new Slot();
        slots.add(slot);
        slot.id = nonBlank(Wire.text(call.get("id")));
        slot.name = nonBlank(Wire.text(call.path("function").get("name")));
        appendArguments(slot, call.path("function").get("arguments"));
    }

    /** The calls in the order they started, with ids filled in. */
    List<ToolCall> calls() {
        List<ToolCall> calls = new ArrayList<>();
        int n = 0;
        for (Slot slot : slots) {
            if (slot.isEmpty()) {
                continue;
            }
            String id = slot.id != null ? slot.id : "call_" + n;
            calls.add(new ToolCall(id, slot.name == null ? "" : slot.name, slot.arguments.toString()));
            n++;
        }
        return calls;
    }

    private Slot slotFor(String id, Integer index, String name) {
        if (id != null && byId.containsKey(id)) {
            return byId.get(id);
        }
        if (index != null) {
            Slot known = byIndex.get(index);
            if (known != null && !(id != null && known.id != null && !id.equals(known.id))) {
                return known;
            }
            Slot fresh = newSlot();
            byIndex.put(index, fresh);
            return fresh;
        }
        if (id != null || slots.isEmpty()) {
            return newSlot();
        }
        Slot last = slots.get(slots.size() - 1);
        boolean startsAnother = name != null && last.name != null && !name.equals(last.name) && !last.arguments.isEmpty();
        return startsAnother ? newSlot() : last;
    }

    private Slot newSlot() {
        Slot slot = new Slot();
        slots.add(slot);
        return slot;
    }

    private static void appendArguments(Slot slot, JsonNode arguments) {
        if (arguments == null || arguments.isNull() || arguments.isMissingNode()) {
            return;
        }
        if (arguments.isTextual()) {
            slot.arguments.append(arguments.asText());
        } else {
            slot.arguments.setLength(0);
            slot.arguments.append(arguments);
        }
    }

    private static String nonBlank(String text) {
        return text == null || text.isBlank() ? null : text;
    }
}
