package dev.herald.platforms.weixin;

import static dev.herald.platforms.LocalJsonServer.JSON;
import static dev.herald.platforms.LocalJsonServer.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local fake of the iLink bot API as public clients describe it: {@code getupdates} returns the
 * messages after the given {@code get_updates_buf} cursor ({@code c<N>} = N messages consumed) and the
 * cursor after them; {@code sendmessage} records what the bot sent. Calls without the right bearer token
 * get HTTP 401; {@link #failPolls} makes getupdates answer HTTP 500.
 *
 * <p>It also plays WeChat's media CDN under {@link #cdnBase()}: files a user sends are stored AES-128-ECB encrypted
 * under a random key and served at {@code /c2c/download?encrypted_query_param=...}; {@code getuploadurl} answers an
 * {@code upload_param}, {@code /c2c/upload} takes the bot's ciphertext and answers {@code x-encrypted-param}, and the
 * upload is decrypted with the key the sent item names ({@link #received}). {@code getconfig} answers a
 * {@code typing_ticket}; {@code sendtyping} calls are recorded ({@link #typing}).
 */
final class FakeILink implements AutoCloseable {
    private final LocalJsonServer server;
    private final String token;
    private final List<ObjectNode> inbox = new CopyOnWriteArrayList<>();
    private final List<JsonNode> sent = new CopyOnWriteArrayList<>();
    /** Delay before a sent message is answered (it is delivered at once). */
    volatile java.time.Duration answerDelay = java.time.Duration.ZERO;
    private final List<String> cursorsAsked = new CopyOnWriteArrayList<>();
    private final AtomicLong ids = new AtomicLong(7_000_000_000L);
    private volatile boolean pollsFail;
    /** CDN files by download parameter: their ciphertext. */
    private final java.util.Map<String, byte[]> cdn = new java.util.concurrent.ConcurrentHashMap<>();
    /** Uploads by upload_param: the getuploadurl request, then the ciphertext the CDN took. */
    private final java.util.Map<String, JsonNode> uploadRequests = new java.util.concurrent.ConcurrentHashMap<>();
    final List<String> typing = new CopyOnWriteArrayList<>();
    final List<String> cdnDownloads = new CopyOnWriteArrayList<>();

    FakeILink(String token) {
        this.token = token;
        server = new LocalJsonServer(this::handle);
    }

    String apiBase() {
        return server.baseUrl();
    }

    String cdnBase() {
        return server.baseUrl() + "/c2c";
    }

    /** Settings for the bot {@code token} on this fake, its CDN included (so no test reaches WeChat's). */
    WeixinSettings settings(String token) {
        return WeixinSettings.of(apiBase(), token).withMedia(cdnBase(), WeixinSettings.DEFAULT_MAX_FILE_BYTES);
    }

    /** A file on the CDN, encrypted under a fresh key; returns {download parameter, key}. */
    String[] store(byte[] plain) {
        byte[] key = new byte[16];
        new java.security.SecureRandom().nextBytes(key);
        String param = "dl-" + ids.incrementAndGet();
        cdn.put(param, crypt(javax.crypto.Cipher.ENCRYPT_MODE, plain, key));
        return new String[] {param, java.util.HexFormat.of().formatHex(key)};
    }

    /** Raw bytes on the CDN under {@code param} (not a ciphertext, or one under another key). */
    void storeRaw(String param, byte[] bytes) {
        cdn.put(param, bytes);
    }

    /** A message with {@code items} (their JSON) from {@code user}, in {@code group} when not null. */
    ObjectNode userSends(String user, String group, String contextToken, JsonNode... items) {
        ObjectNode m = JSON.createObjectNode();
        m.put("message_id", ids.incrementAndGet());
        m.put("from_user_id", user);
        m.put("to_user_id", "bot@im.bot");
        if (group != null) {
            m.put("group_id", group);
        }
        m.put("message_type", 1);
        m.put("message_state", 2);
        ArrayNode list = m.putArray("item_list");
        for (JsonNode i : items) {
            list.add(i);
        }
        m.put("context_token", contextToken);
        inbox.add(m);
        return m;
    }

    static ObjectNode textItem(String text) {
        ObjectNode i = JSON.createObjectNode().put("type", 1);
        i.putObject("text_item").put("text", text);
        return i;
    }

    /** A media item of {@code type} (2 image, 3 voice, 4 file, 5 video) naming {@code stored} ({param, hex key}). */
    static ObjectNode mediaItem(int type, String[] stored) {
        String field = switch (type) {
            case 2 -> "image_item";
            case 3 -> "voice_item";
            case 4 -> "file_item";
            default -> "video_item";
        };
        ObjectNode i = JSON.createObjectNode().put("type", type);
        ObjectNode media = i.putObject(field).putObject("media").put("encrypt_query_param", stored[0]).put("encrypt_type", 1);
        if (type == 2) {
            ((ObjectNode) i.get(field)).put("aeskey", stored[1]); // images carry the hex key; others base64 of the hex digits
        } else {
            media.put("aes_key", java.util.Base64.getEncoder().encodeToString(stored[1].getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        }
        return i;
    }

    /** The file a sent item names: its ciphertext from the CDN, decrypted with the item's aes_key. */
    byte[] received(JsonNode item) {
        JsonNode media = item.path(switch (item.path("type").asInt()) {
            case 2 -> "image_item";
            case 5 -> "video_item";
            default -> "file_item";
        }).path("media");
        byte[] keyHex = java.util.Base64.getDecoder().decode(media.path("aes_key").asText());
        byte[] key = java.util.HexFormat.of().parseHex(new String(keyHex, java.nio.charset.StandardCharsets.US_ASCII));
        return crypt(javax.crypto.Cipher.DECRYPT_MODE, cdn.get(media.path("encrypt_query_param").asText()), key);
    }

    /** The getuploadurl request that preceded the upload a sent item names. */
    JsonNode uploadRequest(JsonNode item) {
        String param = item.findPath("encrypt_query_param").asText();
        return uploadRequests.get(param);
    }

    static byte[] crypt(int mode, byte[] in, byte[] key) {
        try {
            javax.crypto.Cipher c = javax.crypto.Cipher.getInstance("AES/ECB/PKCS5Padding");
            c.init(mode, new javax.crypto.spec.SecretKeySpec(key, "AES"));
            return c.doFinal(in);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A user writes to the bot; returns the message (to deliver it again). */
    ObjectNode userSays(String user, String text, String contextToken) {
        ObjectNode m = JSON.createObjectNode();
        m.put("message_id", ids.incrementAndGet());
        m.put("from_user_id", user);
        m.put("to_user_id", "bot@im.bot");
        m.put("create_time_ms", System.currentTimeMillis());
        m.put("message_type", 1);
        m.put("message_state", 2);
        m.putArray("item_list").addObject().put("type", 1).putObject("text_item").put("text", text);
        m.put("context_token", contextToken);
        inbox.add(m);
        return m;
    }

    /** The same message again, after the cursor (as a server that lost the acknowledgement would). */
    void deliverAgain(ObjectNode m) {
        inbox.add(m.deepCopy());
    }

    void failPolls(boolean fail) {
        pollsFail = fail;
    }

    /** Every sendmessage body's {@code msg}, in order. */
    List<JsonNode> sent() {
        return List.copyOf(sent);
    }

    List<String> cursorsAsked() {
        return new ArrayList<>(cursorsAsked);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (ex.getRequestURI().getPath().startsWith("/c2c/")) {
                cdn(ex);
                return;
            }
            JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
            if (!("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))
                    || !"ilink_bot_token".equals(ex.getRequestHeaders().getFirst("AuthorizationType"))) {
                reply(ex, 401, JSON.createObjectNode().put("ret", -1).put("errmsg", "unauthorized"));
                return;
            }
            switch (ex.getRequestURI().getPath()) {
                case "/ilink/bot/getupdates" -> updates(ex, body);
                case "/ilink/bot/sendmessage" -> {
                    sent.add(body.path("msg"));
                    if (!answerDelay.isZero()) {
                        try {
                            Thread.sleep(answerDelay);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    reply(ex, 200, JSON.createObjectNode().put("ret", 0));
                }
                case "/ilink/bot/getconfig" -> reply(ex, 200, JSON.createObjectNode().put("ret", 0)
                        .put("typing_ticket", "ticket-" + body.path("ilink_user_id").asText()));
                case "/ilink/bot/sendtyping" -> {
                    typing.add(body.path("ilink_user_id").asText() + " " + body.path("typing_ticket").asText() + " "
                            + body.path("status").asInt());
                    reply(ex, 200, JSON.createObjectNode().put("ret", 0));
                }
                case "/ilink/bot/getuploadurl" -> {
                    String param = "up-" + ids.incrementAndGet();
                    uploadRequests.put(param, body);
                    reply(ex, 200, JSON.createObjectNode().put("ret", 0).put("upload_param", param));
                }
                default -> reply(ex, 404, JSON.createObjectNode().put("ret", -1).put("errmsg", "no such method"));
            }
        }
    }

    /** The CDN: downloads by encrypted_query_param, uploads by upload_param and filekey. */
    private void cdn(HttpExchange ex) throws IOException {
        java.util.Map<String, String> q = new java.util.HashMap<>();
        for (String kv : ex.getRequestURI().getRawQuery() == null ? new String[0] : ex.getRequestURI().getRawQuery().split("&")) {
            int eq = kv.indexOf('=');
            q.put(kv.substring(0, eq), java.net.URLDecoder.decode(kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
        }
        String param = q.getOrDefault("encrypted_query_param", "");
        if (ex.getRequestURI().getPath().equals("/c2c/download") && ex.getRequestMethod().equals("GET")) {
            cdnDownloads.add(param);
            byte[] bytes = cdn.get(param);
            if (bytes == null) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
            ex.sendResponseHeaders(200, bytes.length);
            ex.getResponseBody().write(bytes);
            return;
        }
        JsonNode asked = uploadRequests.get(param);
        byte[] cipher = ex.getRequestBody().readAllBytes();
        if (!ex.getRequestURI().getPath().equals("/c2c/upload") || asked == null
                || !asked.path("filekey").asText().equals(q.get("filekey")) || asked.path("filesize").asLong() != cipher.length) {
            ex.getResponseHeaders().set("x-error-message", "unknown upload or wrong size");
            ex.sendResponseHeaders(400, -1);
            return;
        }
        String download = "dl-" + ids.incrementAndGet();
        cdn.put(download, cipher);
        uploadRequests.put(download, asked);
        ex.getResponseHeaders().set("x-encrypted-param", download);
        ex.sendResponseHeaders(200, -1);
    }

    private void updates(HttpExchange ex, JsonNode body) throws IOException {
        String cursor = body.path("get_updates_buf").asText("");
        cursorsAsked.add(cursor);
        if (pollsFail) {
            reply(ex, 500, JSON.createObjectNode().put("ret", -1).put("errmsg", "internal error"));
            return;
        }
        int from = cursor.startsWith("c") ? Integer.parseInt(cursor.substring(1)) : 0;
        if (from >= inbox.size()) {
            LocalJsonServer.holdEmptyPoll();
        }
        int to = inbox.size();
        ObjectNode out = JSON.createObjectNode().put("ret", 0);
        ArrayNode msgs = out.putArray("msgs");
        for (int i = from; i < to; i++) {
            msgs.add(inbox.get(i));
        }
        out.put("get_updates_buf", "c" + to);
        out.put("longpolling_timeout_ms", 35000);
        reply(ex, 200, out);
    }

    @Override
    public void close() {
        server.close();
    }
}
