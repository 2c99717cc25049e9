package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.herald.platforms.common.JsonHttp;
import dev.herald.platforms.common.PlatformIds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The iLink bot API wire format, all of it in this one class because it is only known from public client
 * implementations, not from a published specification.
 *
 * <p>Every call is {@code POST <api_base>/ilink/bot/<method>} with a JSON body carrying
 * {@code base_info.channel_version}, and headers {@code AuthorizationType: ilink_bot_token},
 * {@code Authorization: Bearer <token>} and {@code X-WECHAT-UIN} (a random uint32, decimal, base64).
 * Answers carry {@code ret} (0 = success) and sometimes {@code errcode}/{@code errmsg}; {@code -14} means
 * the login session expired.
 * <ul>
 *   <li>{@code getupdates {get_updates_buf}} long-polls; answers {@code msgs[]}, the next
 *       {@code get_updates_buf} cursor and a suggested {@code longpolling_timeout_ms};</li>
 *   <li>a message: {@code message_id}, {@code from_user_id}, {@code to_user_id}, {@code message_type}
 *       (1 user, 2 bot), {@code item_list[]} ({@code type} 1 = text with {@code text_item.text};
 *       2 image, 3 voice, 4 file, 5 video), {@code context_token} (to be echoed on replies);</li>
 *   <li>{@code sendmessage {msg: {to_user_id, from_user_id: "", client_id, message_type: 2,
 *       message_state: 2, context_token, item_list: [{type: 1, text_item: {text}}]}}} sends text.</li>
 * </ul>
 */
final class ILinkApi {
    static final int SESSION_EXPIRED = -14;
    private static final Map<String, String> BASE_INFO = Map.of("channel_version", "1.0.0");
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(15);

    /** One answer; {@code code} is errcode when non-zero, else ret. */
    record Answer(String method, int status, int code, String errmsg, JsonNode body) {
        boolean ok() {
            return status >= 200 && status < 300 && code == 0;
        }

        boolean unauthorized() {
            return status == 401 || status == 403;
        }

        boolean sessionExpired() {
            return code == SESSION_EXPIRED;
        }

        boolean retryable() {
            return status == 429 || status >= 500 || (status < 300 && code != 0 && !sessionExpired());
        }

        String problem() {
            return method + (status >= 300 ? " HTTP " + status : "") + (code != 0 ? " ret " + code : "")
                    + (errmsg == null || errmsg.isBlank() ? "" : ": " + errmsg);
        }
    }

    /**
     * One user message from a getupdates answer.
     *
     * @param messageId    the server's message id, or null
     * @param fromUser     the sender's user id (the chat is the sender: iLink bots talk 1:1)
     * @param text         the text items joined by newlines; empty when there are none
     * @param contextToken the token to echo on replies, or null
     * @param otherItems   how many items were not text (media: not supported yet)
     */
    record Inbound(String messageId, String fromUser, String text, String contextToken, int otherItems) {
    }

    /** Reads one entry of {@code msgs}; null for the bot's own messages and entries without a sender. */
    static Inbound inbound(JsonNode m) {
        String from = PlatformIds.of(m.path("from_user_id"));
        if (from == null || m.path("message_type").asInt(1) != 1) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        int other = 0;
        for (JsonNode item : m.path("item_list")) {
            if (item.path("type").asInt() == 1 && item.path("text_item").hasNonNull("text")) {
                text.append(text.isEmpty() ? "" : "\n").append(item.path("text_item").path("text").asText());
            } else {
                other++;
            }
        }
        String id = m.hasNonNull("message_id") ? PlatformIds.of(m.get("message_id"))
                : m.hasNonNull("seq") ? PlatformIds.clean("seq" + m.get("seq").asText()) : null;
        return new Inbound(id, from, text.toString(), contextToken(m.path("context_token")), other);
    }

    /** The context token to echo on replies; null when missing or not a plausible token (over 4,096 characters, control characters). */
    private static String contextToken(JsonNode node) {
        String t = node.isTextual() ? node.asText() : "";
        return t.isEmpty() || t.length() > 4_096 || t.chars().anyMatch(c -> c < 0x20 || c == 0x7f) ? null : t;
    }

    /** The cursor to send next, or {@code current} when the answer has none. */
    static String nextCursor(Answer a, String current) {
        JsonNode c = a.body().path("get_updates_buf");
        return c.isTextual() && !c.asText().isEmpty() ? c.asText() : current;
    }

    private final String base;
    private final String token;
    private final JsonHttp http;
    private final SecureRandom random = new SecureRandom();

    ILinkApi(String apiBase, String token) {
        this.base = (apiBase.endsWith("/") ? apiBase : apiBase + "/") + "ilink/bot/";
        this.token = token;
        this.http = new JsonHttp(Duration.ofSeconds(10), List.of(token));
    }

    Answer getUpdates(String cursor, Duration wait) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("get_updates_buf", cursor == null ? "" : cursor);
        body.put("base_info", BASE_INFO);
        return call("getupdates", body, wait);
    }

    Answer sendText(String toUser, String text, String contextToken) throws IOException {
        Map<String, Object> msg = new LinkedHashMap<>();
        msg.put("from_user_id", "");
        msg.put("to_user_id", toUser);
        msg.put("client_id", "herald-" + UUID.randomUUID());
        msg.put("message_type", 2);
        msg.put("message_state", 2);
        msg.put("context_token", contextToken == null ? "" : contextToken);
        msg.put("item_list", List.of(Map.of("type", 1, "text_item", Map.of("text", text))));
        return call("sendmessage", Map.of("msg", msg, "base_info", BASE_INFO), SEND_TIMEOUT);
    }

    String describe(Throwable e) {
        return http.describe(e);
    }

    private Answer call(String method, Map<String, Object> body, Duration timeout) throws IOException {
        Map<String, String> headers = Map.of(
                "AuthorizationType", "ilink_bot_token",
                "Authorization", "Bearer " + token,
                "X-WECHAT-UIN", Base64.getEncoder().encodeToString(Integer.toUnsignedString(random.nextInt())
                        .getBytes(StandardCharsets.UTF_8)));
        JsonHttp.Reply r = http.post(base + method, body, headers, timeout);
        JsonNode json = r.body() == null ? MissingNode.getInstance() : r.body();
        int errcode = json.path("errcode").asInt(0);
        int code = errcode != 0 ? errcode : json.path("ret").asInt(0);
        String errmsg = json.path("errmsg").isTextual() ? http.redact(json.path("errmsg").asText()) : null;
        return new Answer(method, r.status(), code, errmsg, json);
    }
}
