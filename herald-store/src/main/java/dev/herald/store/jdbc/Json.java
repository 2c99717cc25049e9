package dev.herald.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.transcript.ToolCall;
import java.util.ArrayList;
import java.util.List;

/**
 * The small JSON documents both stores keep in TEXT columns: a session source, a list of tool calls, a list of
 * attachments. Field names are written out here (not derived from the records) so that renaming a Java
 * field never changes what is stored, and rows read the same whichever store wrote them. TEXT rather
 * than PostgreSQL's {@code jsonb}: a damaged document must still be stored and reported as an
 * unreadable row naming its key, not refused somewhere else.
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Json.class);

    private Json() {
    }

    /** {@code text} as a JSON string literal, quotes and escapes included (to find it in a stored document). */
    static String quoted(String text) {
        return new com.fasterxml.jackson.databind.node.TextNode(text).toString();
    }

    /** The source as JSON, or null for null. */
    public static String source(SessionSource s) {
        if (s == null) {
            return null;
        }
        ObjectNode o = MAPPER.createObjectNode();
        o.put("platform", s.platform().id());
        o.put("chat_id", s.chatId());
        o.put("chat_type", s.chatType().wire());
        putIfSet(o, "user_id", s.userId());
        putIfSet(o, "user_name", s.userName());
        putIfSet(o, "thread_id", s.threadId());
        putIfSet(o, "chat_name", s.chatName());
        return o.toString();
    }

    /** The source in {@code json}; null for null; {@link RowDecodeException} naming {@code column} when it is not a source. */
    static SessionSource source(String json, String column) {
        if (json == null) {
            return null;
        }
        return RowDecodeException.decoding(column, json, () -> {
            JsonNode o = parse(json);
            return new SessionSource(Platform.of(required(o, "platform")), required(o, "chat_id"),
                    ChatType.fromWire(required(o, "chat_type")), text(o, "user_id"), text(o, "user_name"),
                    text(o, "thread_id"), text(o, "chat_name"));
        });
    }

    /** The calls as a JSON array, or null when there are none. */
    static String toolCalls(List<ToolCall> calls) {
        if (calls.isEmpty()) {
            return null;
        }
        ArrayNode a = MAPPER.createArrayNode();
        for (ToolCall c : calls) {
            a.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.argumentsJson());
        }
        return a.toString();
    }

    /** The calls in {@code json}; none for null; {@link RowDecodeException} naming {@code tool_calls} when it is not a list of calls. */
    static List<ToolCall> toolCalls(String json) {
        if (json == null) {
            return List.of();
        }
        return RowDecodeException.decoding("tool_calls", json, () -> {
            JsonNode a = parse(json);
            if (!a.isArray()) {
                throw new IllegalArgumentException("not a JSON array");
            }
            List<ToolCall> out = new ArrayList<>(a.size());
            for (JsonNode c : a) {
                out.add(new ToolCall(required(c, "id"), required(c, "name"), text(c, "arguments")));
            }
            return out;
        });
    }

    /** The attachments as a JSON array, or null when there are none. */
    static String attachments(List<MediaRef> refs) {
        if (refs.isEmpty()) {
            return null;
        }
        ArrayNode a = MAPPER.createArrayNode();
        for (MediaRef r : refs) {
            ObjectNode o = a.addObject().put("kind", r.kind()).put("ref", r.ref());
            putIfSet(o, "mime_type", r.mimeType());
            putIfSet(o, "name", r.name());
            if (r.size() >= 0) {
                o.put("size", r.size());
            }
        }
        return a.toString();
    }

    /** The attachments in {@code json}; none for null; {@link RowDecodeException} naming {@code attachments} when it is not a list of them. */
    static List<MediaRef> attachments(String json) {
        if (json == null) {
            return List.of();
        }
        return RowDecodeException.decoding("attachments", json, () -> {
            JsonNode a = parse(json);
            if (!a.isArray()) {
                throw new IllegalArgumentException("not a JSON array");
            }
            List<MediaRef> out = new ArrayList<>(a.size());
            for (JsonNode r : a) {
                JsonNode size = r.get("size");
                out.add(new MediaRef(required(r, "kind"), required(r, "ref"), text(r, "mime_type"), text(r, "name"),
                        size == null || !size.canConvertToLong() ? -1 : size.asLong()));
            }
            return out;
        });
    }

    /**
     * The attachments of a row, or none when they cannot be read: an unreadable attachments value is logged naming
     * {@code row} and the row is read without it, so that its text and every other row stay readable.
     */
    static List<MediaRef> attachmentsOrNone(String json, String row) {
        try {
            return attachments(json);
        } catch (RowDecodeException e) {
            LOG.error("store - {}: {}; the row is read without its attachments (fix or clear the column to get them back)",
                    row, e.problem());
            return List.of();
        }
    }

    /** The files of a reply as a JSON array, or null when there are none. */
    static String files(List<dev.herald.core.platform.OutboundFile> files) {
        if (files.isEmpty()) {
            return null;
        }
        ArrayNode a = MAPPER.createArrayNode();
        for (var f : files) {
            ObjectNode o = a.addObject().put("path", f.path()).put("name", f.name()).put("mime_type", f.mimeType()).put("size", f.size());
            putIfSet(o, "caption", f.caption());
        }
        return a.toString();
    }

    /**
     * The files of a reply; none for null. An unreadable value is logged naming {@code row} and read as none: the reply's
     * text is still delivered, and the log says which files were lost.
     */
    static List<dev.herald.core.platform.OutboundFile> files(String json, String row) {
        if (json == null) {
            return List.of();
        }
        try {
            return RowDecodeException.decoding("reply_files", json, () -> {
                JsonNode a = parse(json);
                if (!a.isArray()) {
                    throw new IllegalArgumentException("not a JSON array");
                }
                List<dev.herald.core.platform.OutboundFile> out = new ArrayList<>(a.size());
                for (JsonNode f : a) {
                    out.add(new dev.herald.core.platform.OutboundFile(required(f, "path"), required(f, "name"), text(f, "mime_type"),
                            f.path("size").asLong(-1), text(f, "caption")));
                }
                return out;
            });
        } catch (RowDecodeException e) {
            LOG.error("store - {}: {}; its reply is sent without these files", row, e.problem());
            return List.of();
        }
    }

    /** A list of strings as a JSON array (platform message ids). */
    static String strings(List<String> values) {
        ArrayNode array = MAPPER.createArrayNode();
        values.forEach(array::add);
        return array.toString();
    }

    /** The strings of a JSON array; empty for null or blank (rows written before the column existed). */
    static List<String> strings(String json) {
        if (json == null || json.isBlank()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        parse(json).forEach(n -> out.add(n.asText()));
        return out;
    }

    private static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON (" + e.getOriginalMessage() + ")", e);
        }
    }

    private static void putIfSet(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }

    private static String required(JsonNode o, String field) {
        String v = text(o, field);
        if (v == null) {
            throw new IllegalArgumentException("field '" + field + "' is missing");
        }
        return v;
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
