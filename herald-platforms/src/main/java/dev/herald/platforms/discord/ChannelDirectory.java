package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What Herald knows about guild channels: whether a channel is a thread, and of which parent. A message
 * event carries only its channel id, so the adapter keeps what the gateway tells it (GUILD_CREATE with its
 * channels and active threads, CHANNEL_* and THREAD_* events) and asks REST for a channel it has not seen.
 */
final class ChannelDirectory {
    /** Discord channel types 10, 11 and 12: announcement, public and private threads. */
    private static final java.util.Set<Integer> THREAD_TYPES = java.util.Set.of(10, 11, 12);

    /** One channel: its type, its parent (for a thread: the channel it lives in) and its name. */
    record Channel(String id, int type, String parentId, String name) {
        boolean isThread() {
            return THREAD_TYPES.contains(type) && parentId != null;
        }
    }

    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final Function<String, Optional<JsonNode>> lookup;

    /** @param lookup reads one channel by id from REST (empty when it cannot) */
    ChannelDirectory(Function<String, Optional<JsonNode>> lookup) {
        this.lookup = lookup;
    }

    /** Takes in a dispatch that describes channels; ignores every other type. */
    void onDispatch(String type, JsonNode d) {
        switch (type) {
            case "GUILD_CREATE" -> {
                d.path("channels").forEach(this::put);
                d.path("threads").forEach(this::put);
            }
            case "CHANNEL_CREATE", "CHANNEL_UPDATE", "THREAD_CREATE", "THREAD_UPDATE" -> put(d);
            case "THREAD_LIST_SYNC" -> d.path("threads").forEach(this::put);
            case "CHANNEL_DELETE", "THREAD_DELETE" -> channels.remove(d.path("id").asText(""));
            default -> {
            }
        }
    }

    /** The channel, from what the gateway told, else from REST (remembered); a plain text channel when both fail. */
    Channel get(String id) {
        Channel known = channels.get(id);
        if (known != null) {
            return known;
        }
        Optional<JsonNode> read = lookup.apply(id);
        if (read.isEmpty()) {
            return new Channel(id, 0, null, null);
        }
        Channel c = parse(read.get());
        channels.put(id, c);
        return c;
    }

    private void put(JsonNode n) {
        String id = n.path("id").asText("");
        if (!id.isEmpty()) {
            channels.put(id, parse(n));
        }
    }

    private static Channel parse(JsonNode n) {
        String parent = n.path("parent_id").asText(null);
        String name = n.path("name").asText(null);
        return new Channel(n.path("id").asText(""), n.path("type").asInt(0), parent == null || parent.isBlank() ? null : parent, name);
    }
}
