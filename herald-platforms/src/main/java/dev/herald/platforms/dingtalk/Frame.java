package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;

/**
 * One Stream frame as DingTalk sends it: {@code {specVersion, type, headers: {messageId, topic, ...}, data}}, where
 * {@code data} is a JSON document in a string. {@link #parse} gives null for anything else (not JSON, no type, no
 * messageId), which is logged and dropped: without a messageId there is nothing to acknowledge.
 */
record Frame(String type, String topic, String messageId, String data) {
    private static final int MAX_ID = 256;

    static Frame parse(String text) {
        JsonNode n;
        try {
            n = JsonHttp.JSON.readTree(text);
        } catch (IOException e) {
            return null;
        }
        if (n == null || !n.isObject()) {
            return null;
        }
        String type = n.path("type").isTextual() ? n.path("type").asText() : "";
        JsonNode headers = n.path("headers");
        String id = headers.path("messageId").isTextual() ? headers.path("messageId").asText() : "";
        if (type.isBlank() || id.isBlank() || id.length() > MAX_ID) {
            return null;
        }
        String topic = headers.path("topic").isTextual() ? headers.path("topic").asText() : "";
        String data = n.path("data").isTextual() ? n.path("data").asText() : "";
        return new Frame(type, topic, id, data);
    }

    /** {@code data} parsed, or null when it is not JSON. */
    JsonNode json() {
        try {
            return data.isEmpty() ? null : JsonHttp.JSON.readTree(data);
        } catch (IOException e) {
            return null;
        }
    }
}
