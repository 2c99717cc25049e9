package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.herald.platforms.common.JsonHttp;
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
 *       message_state: 2, context_token, item_list: [one item]}}} sends one item: text ({@code {type: 1, text_item: {text}}})
 *       or an uploaded file (image 2, file 4, video 5, see {@link WeixinMedia});</li>
 *   <li>{@code getconfig {ilink_user_id, context_token}} answers the chat's {@code typing_ticket};
 *       {@code sendtyping {ilink_user_id, typing_ticket, status}} shows (1) or cancels (2) the typing indicator;</li>
 *   <li>{@code getuploadurl {filekey, media_type (1 image, 2 video, 3 file, 4 voice), to_user_id, rawsize, rawfilemd5,
 *       filesize (ciphertext), no_need_thumb, aeskey (hex)}} answers {@code upload_param} (or {@code upload_full_url}) for
 *       the CDN upload ({@link WeixinCdn}).</li>
 * </ul>
 * Messages are read by {@link WeixinMessages}.
 */
final class ILinkApi {
    static final int SESSION_EXPIRED = -14;
    private static final Map<String, String> BASE_INFO = Map.of("channel_version", "1.0.0");
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration CONFIG_TIMEOUT = Duration.ofSeconds(10);

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
        return sendItem(toUser, Map.of("type", 1, "text_item", Map.of("text", text)), contextToken);
    }

    /** Sends one message item ({@code {type, <kind>_item: {...}}}) to {@code toUser}. */
    Answer sendItem(String toUser, Map<String, Object> item, String contextToken) throws IOException {
        Map<String, Object> msg = new LinkedHashMap<>();
        msg.put("from_user_id", "");
        msg.put("to_user_id", toUser);
        msg.put("client_id", "herald-" + UUID.randomUUID());
        msg.put("message_type", 2);
        msg.put("message_state", 2);
        msg.put("context_token", contextToken == null ? "" : contextToken);
        msg.put("item_list", List.of(item));
        return call("sendmessage", Map.of("msg", msg, "base_info", BASE_INFO), SEND_TIMEOUT);
    }

    /** The chat's configuration; its {@code typing_ticket} lets {@link #sendTyping} show the indicator. */
    Answer getConfig(String user, String contextToken) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ilink_user_id", user);
        if (contextToken != null) {
            body.put("context_token", contextToken);
        }
        body.put("base_info", BASE_INFO);
        return call("getconfig", body, CONFIG_TIMEOUT);
    }

    /** Shows ({@code typing}) or cancels the typing indicator in {@code user}'s chat. */
    Answer sendTyping(String user, String ticket, boolean typing) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ilink_user_id", user);
        body.put("typing_ticket", ticket);
        body.put("status", typing ? 1 : 2);
        body.put("base_info", BASE_INFO);
        return call("sendtyping", body, CONFIG_TIMEOUT);
    }

    /** Asks where to upload one encrypted file ({@code mediaType}: 1 image, 2 video, 3 file). */
    Answer getUploadUrl(String fileKey, int mediaType, String toUser, long rawSize, String rawMd5, long cipherSize, String hexKey)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("filekey", fileKey);
        body.put("media_type", mediaType);
        body.put("to_user_id", toUser);
        body.put("rawsize", rawSize);
        body.put("rawfilemd5", rawMd5);
        body.put("filesize", cipherSize);
        body.put("no_need_thumb", true);
        body.put("aeskey", hexKey);
        body.put("base_info", BASE_INFO);
        return call("getuploadurl", body, SEND_TIMEOUT);
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
