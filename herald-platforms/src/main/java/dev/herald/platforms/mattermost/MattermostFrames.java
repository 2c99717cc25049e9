package dev.herald.platforms.mattermost;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads one text frame of Mattermost's WebSocket API. The server sends events ({@code {"event":..., "data":{...},
 * "broadcast":{...}, "seq":N}}, {@code seq} counting from 0 on each connection, {@code hello} first) and replies to
 * Herald's actions ({@code {"status":"OK", "seq_reply":N}}). A {@code posted} event carries the post as a JSON string in
 * {@code data.post}, with the channel's type ({@code D}, {@code G}, {@code O}, {@code P}) and name beside it.
 *
 * <p>Never throws: anything else becomes {@link Malformed} with what was wrong, for the log line.
 */
final class MattermostFrames {
    /** The largest frame Herald reads; a post is at most 16,383 characters, so a bigger frame is not one the server sends. */
    static final int MAX_FRAME_CHARS = 1_000_000;

    sealed interface Frame {
    }

    /** The first event of a connection. */
    record Hello(long seq, String connectionId, String serverVersion) implements Frame {
    }

    /** A new post in a channel the bot is a member of. */
    record Posted(long seq, JsonNode post, String channelType, String channelName, String channelDisplayName, String senderName)
            implements Frame {
    }

    /** The answer to one of Herald's actions (the authentication challenge, a ping). */
    record Reply(long seqReply, boolean ok, String errorId) implements Frame {
    }

    /** Any other event (typing, status changes, reactions): only its sequence number matters. */
    record Other(long seq, String event) implements Frame {
    }

    /** Not a frame Herald can read; {@code problem} says why (never the frame's content). */
    record Malformed(String problem) implements Frame {
    }

    private final ObjectMapper json;

    MattermostFrames(ObjectMapper json) {
        this.json = json;
    }

    Frame parse(String text) {
        if (text == null || text.isEmpty()) {
            return new Malformed("an empty frame");
        }
        if (text.length() > MAX_FRAME_CHARS) {
            return new Malformed("a frame of " + text.length() + " characters, over the " + MAX_FRAME_CHARS + " Herald reads");
        }
        JsonNode n;
        try {
            n = json.readTree(text);
        } catch (JacksonException | StackOverflowError e) {
            return new Malformed("a frame that is not JSON (" + text.length() + " characters)");
        }
        if (n == null || !n.isObject()) {
            return new Malformed("a frame that is not a JSON object");
        }
        if (n.has("seq_reply")) {
            return new Reply(n.path("seq_reply").asLong(-1), "OK".equals(n.path("status").asText("")),
                    n.path("error").path("id").asText(""));
        }
        JsonNode eventNode = n.path("event");
        if (!eventNode.isTextual()) {
            return new Malformed("a frame without an event name");
        }
        String event = eventNode.asText();
        long seq = n.path("seq").isIntegralNumber() ? n.path("seq").asLong() : -1;
        JsonNode data = n.path("data");
        return switch (event) {
            case "hello" -> new Hello(seq, data.path("connection_id").asText(""), data.path("server_version").asText(""));
            case "posted" -> posted(seq, data);
            default -> new Other(seq, event.length() > 64 ? event.substring(0, 64) : event);
        };
    }

    private Frame posted(long seq, JsonNode data) {
        JsonNode postText = data.path("post");
        if (!postText.isTextual()) {
            return new Malformed("a posted event whose data.post is not a string (seq " + seq + ")");
        }
        JsonNode post;
        try {
            post = json.readTree(postText.asText());
        } catch (JacksonException | StackOverflowError e) {
            return new Malformed("a posted event whose data.post is not JSON (seq " + seq + ")");
        }
        if (post == null || !post.isObject()) {
            return new Malformed("a posted event whose data.post is not a JSON object (seq " + seq + ")");
        }
        return new Posted(seq, post, data.path("channel_type").asText(""), data.path("channel_name").asText(""),
                data.path("channel_display_name").asText(""), data.path("sender_name").asText(""));
    }
}
