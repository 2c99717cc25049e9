package dev.herald.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One request the fake server received, with its body parsed for assertions.
 *
 * @param method  the HTTP method
 * @param path    the request path, such as {@code /v1/chat/completions}
 * @param headers the headers, names in lower case
 * @param body    the raw body
 * @param json    the parsed body; a missing node when the body is not JSON
 */
public record RecordedRequest(String method, String path, Map<String, List<String>> headers, String body, JsonNode json) {

    /** One message of the request, as the client sent it. */
    public record Message(String role, String content, String toolCallId, JsonNode toolCalls) {
    }

    public RecordedRequest {
        headers = Map.copyOf(headers);
        json = json == null ? MissingNode.getInstance() : json;
    }

    /** The first value of a header (any case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** The Authorization header, or null. */
    public String authorization() {
        return header("authorization");
    }

    public String model() {
        return json.path("model").asText(null);
    }

    public boolean stream() {
        return json.path("stream").asBoolean(false);
    }

    /** True when the client asked for a usage chunk ({@code stream_options.include_usage}). */
    public boolean includeUsage() {
        return json.path("stream_options").path("include_usage").asBoolean(false);
    }

    public List<Message> messages() {
        List<Message> messages = new ArrayList<>();
        for (JsonNode m : json.path("messages")) {
            JsonNode content = m.get("content");
            messages.add(new Message(m.path("role").asText(), content == null || content.isNull() ? null : text(content),
                    m.path("tool_call_id").asText(null), m.get("tool_calls")));
        }
        return messages;
    }

    /** A content string, or the text parts of a content array joined. */
    private static String text(JsonNode content) {
        if (!content.isArray()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        content.forEach(p -> sb.append(p.path("text").asText("")));
        return sb.toString();
    }

    /** The content of the last user message, or "" when there is none. */
    public String lastUserMessage() {
        List<Message> messages = messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i).role().equals("user")) {
                return messages.get(i).content() == null ? "" : messages.get(i).content();
            }
        }
        return "";
    }

    /** The {@code url}s of every {@code image_url} part of every message, in order. */
    public List<String> imageUrls() {
        List<String> urls = new ArrayList<>();
        for (JsonNode m : json.path("messages")) {
            for (JsonNode part : m.path("content")) {
                if ("image_url".equals(part.path("type").asText())) {
                    urls.add(part.path("image_url").path("url").asText());
                }
            }
        }
        return urls;
    }

    /** The names of the tools offered, in order. */
    public List<String> toolNames() {
        List<String> names = new ArrayList<>();
        for (JsonNode t : json.path("tools")) {
            names.add(t.path("function").path("name").asText());
        }
        return names;
    }

    /** The {@code tools} array as sent; a missing node when none. */
    public JsonNode tools() {
        return json.path("tools");
    }

    @Override
    public String toString() {
        return method + " " + path + " (model " + model() + ", " + messages().size() + " messages, stream " + stream() + ")";
    }
}
