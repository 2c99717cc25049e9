package dev.herald.platforms.wecom;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import dev.herald.platforms.MultipartForm;
import dev.herald.web.PlatformRoutes;
import dev.herald.web.WebServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A local stand-in for WeCom, written for these tests from WeCom's server API documentation: {@code GET
 * /cgi-bin/gettoken} (corpid and corpsecret checked, a token with {@code expires_in}), {@code POST /cgi-bin/message/send}
 * (text, markdown, template_card, image, video, file; the token checked: 40014 for an unknown one, 42001 for one
 * {@link #expireTokens expired}), {@code POST /cgi-bin/media/upload} (multipart {@code media}, answered with a
 * {@code media_id}) and {@code GET /cgi-bin/media/get} (the bytes, or errcode JSON). Every answer has WeCom's
 * {@code errcode}/{@code errmsg}. The callback side encrypts a message as WeCom's "加解密方案" says (its own
 * implementation, not Herald's), signs it with the token and POSTs it to Herald's callback URL.
 */
final class FakeWeCom implements AutoCloseable {
    static final String CORP_ID = "ww9f3c2a71b5d08e4c";
    static final long AGENT_ID = 1000002;
    static final String SECRET = "fake-corp-secret-8Hq2LxWz0pVb7Kd";
    static final String TOKEN = "fakeCallbackToken27";
    static final String AES_KEY = "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C";

    /** One message/send WeCom accepted. */
    record Sent(String to, String type, JsonNode body) {
        String content() {
            return body.path(type).path("content").asText(null);
        }
    }

    record Upload(String id, String type, String fileName, String contentType, byte[] bytes) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final List<Upload> uploads = new CopyOnWriteArrayList<>();
    final List<String> mediaGets = new CopyOnWriteArrayList<>();
    final AtomicInteger tokenCalls = new AtomicInteger();
    final AtomicInteger sendCalls = new AtomicInteger();
    /** errcodes the next message/send calls answer, one per call. */
    final Deque<Integer> errors = new ConcurrentLinkedDeque<>();
    final Map<String, Object[]> media = new ConcurrentHashMap<>();
    /** Any request to a path under /xxe (a test's external entity) is counted here. */
    final AtomicInteger xxeFetches = new AtomicInteger();
    private final Set<String> valid = ConcurrentHashMap.newKeySet();
    private final Set<String> expired = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ids = new AtomicInteger(1);

    private final LocalJsonServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    volatile WeComSettings settings;
    volatile WeComSettings.Timing timing = timing();
    private volatile WebServer web;
    private volatile String callback;
    private volatile MediaFetchers current;

    FakeWeCom() {
        server = new LocalJsonServer(this::serve);
        settings = WeComSettings.of(server.baseUrl(), CORP_ID, AGENT_ID, SECRET, TOKEN, AES_KEY);
    }

    String baseUrl() {
        return server.baseUrl();
    }

    static WeComSettings.Timing timing() {
        return new WeComSettings.Timing(Duration.ofSeconds(3), Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMillis(200));
    }

    GatewayFixture herald(String... allowedUsers) {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(allowedUsers).closing(this);
        return holder[0];
    }

    private synchronized WeComAdapter adapter(Clock clock, dev.herald.core.platform.PlatformState state) {
        if (web != null) {
            web.close();
        }
        WebServer w = new WebServer(WebServer.Settings.ephemeral());
        MediaFetchers f = new MediaFetchers();
        PlatformContext context = new PlatformContext(WeComAdapter.PLATFORM, clock, Path.of(System.getProperty("java.io.tmpdir")), state, f,
                new PlatformRoutes(WeComAdapter.PLATFORM, w));
        WeComAdapter adapter = WeComPlugin.create(settings, timing, context);
        w.start();
        web = w;
        callback = w.baseUrl() + "/platforms/wecom/callback";
        current = f;
        return adapter;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("wecom").orElseThrow();
    }

    /** Makes every token handed out so far expired: the next call with one gets errcode 42001. */
    void expireTokens() {
        expired.addAll(valid);
        valid.clear();
    }

    // ---- WeCom calling Herald ------------------------------------------------------------------------

    /** A text message from {@code user} as WeCom's plaintext XML. */
    static String text(String user, String msgId, String content) {
        return "<xml><ToUserName><![CDATA[" + CORP_ID + "]]></ToUserName><FromUserName><![CDATA[" + user + "]]></FromUserName>"
                + "<CreateTime>" + Instant.now().getEpochSecond() + "</CreateTime><MsgType><![CDATA[text]]></MsgType>"
                + "<Content><![CDATA[" + content + "]]></Content><MsgId>" + msgId + "</MsgId><AgentID>" + AGENT_ID + "</AgentID></xml>";
    }

    static String image(String user, String msgId, String mediaId) {
        return "<xml><ToUserName><![CDATA[" + CORP_ID + "]]></ToUserName><FromUserName><![CDATA[" + user + "]]></FromUserName>"
                + "<CreateTime>" + Instant.now().getEpochSecond() + "</CreateTime><MsgType><![CDATA[image]]></MsgType>"
                + "<PicUrl><![CDATA[http://169.254.169.254/pic]]></PicUrl><MediaId><![CDATA[" + mediaId + "]]></MediaId>"
                + "<MsgId>" + msgId + "</MsgId><AgentID>" + AGENT_ID + "</AgentID></xml>";
    }

    static String cardEvent(String user, long createTime, String key) {
        return "<xml><ToUserName><![CDATA[" + CORP_ID + "]]></ToUserName><FromUserName><![CDATA[" + user + "]]></FromUserName>"
                + "<CreateTime>" + createTime + "</CreateTime><MsgType><![CDATA[event]]></MsgType>"
                + "<Event><![CDATA[template_card_event]]></Event><EventKey><![CDATA[" + key + "]]></EventKey>"
                + "<TaskId><![CDATA[herald-x]]></TaskId><CardType><![CDATA[button_interaction]]></CardType>"
                + "<ResponseCode><![CDATA[rc-1]]></ResponseCode><AgentID>" + AGENT_ID + "</AgentID></xml>";
    }

    /** {@code plain} encrypted for {@code receiveId} with {@code aesKey}: Base64(AES-256-CBC(random16 + len + msg + id)). */
    static String encrypt(String plain, String receiveId, String aesKey) {
        try {
            byte[] key = Base64.getDecoder().decode(aesKey + "=");
            byte[] msg = plain.getBytes(StandardCharsets.UTF_8);
            byte[] id = receiveId.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] random = new byte[16];
            new SecureRandom().nextBytes(random);
            out.write(random);
            out.write(new byte[] {(byte) (msg.length >>> 24), (byte) (msg.length >>> 16), (byte) (msg.length >>> 8), (byte) msg.length});
            out.write(msg);
            out.write(id);
            int pad = 32 - out.size() % 32;
            for (int i = 0; i < pad; i++) {
                out.write(pad);
            }
            Cipher c = Cipher.getInstance("AES/CBC/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(Arrays.copyOf(key, 16)));
            return Base64.getEncoder().encodeToString(c.doFinal(out.toByteArray()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String sign(String token, String timestamp, String nonce, String encrypted) {
        String[] p = {token, timestamp, nonce, encrypted};
        Arrays.sort(p);
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(String.join("", p).getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String envelope(String encrypted) {
        return "<xml><ToUserName><![CDATA[" + CORP_ID + "]]></ToUserName><AgentID><![CDATA[" + AGENT_ID + "]]></AgentID>"
                + "<Encrypt><![CDATA[" + encrypted + "]]></Encrypt></xml>";
    }

    /** POSTs {@code plainXml} as WeCom does: encrypted for the CorpID, signed with the token, timestamped now. */
    int post(String plainXml) {
        return post(plainXml, CORP_ID, TOKEN, Instant.now());
    }

    int post(String plainXml, String receiveId, String token, Instant at) {
        String enc = encrypt(plainXml, receiveId, AES_KEY);
        String ts = Long.toString(at.getEpochSecond());
        String nonce = Integer.toString(1_000_000 + ids.incrementAndGet());
        return postRaw(envelope(enc), sign(token, ts, nonce, enc), ts, nonce).statusCode();
    }

    HttpResponse<String> postRaw(String body, String signature, String timestamp, String nonce) {
        String q = "msg_signature=" + signature + "&timestamp=" + timestamp + "&nonce=" + nonce;
        HttpRequest r = HttpRequest.newBuilder(URI.create(callback + "?" + q)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "text/xml").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return call(r);
    }

    /** WeCom's URL check: GET with msg_signature, timestamp, nonce and the encrypted echostr. */
    HttpResponse<String> verify(String echoPlain, String token, String receiveId) {
        String enc = encrypt(echoPlain, receiveId, AES_KEY);
        String ts = Long.toString(Instant.now().getEpochSecond());
        String q = "msg_signature=" + sign(token, ts, "1372623149", enc) + "&timestamp=" + ts + "&nonce=1372623149&echostr="
                + URLEncoder.encode(enc, StandardCharsets.UTF_8);
        return call(HttpRequest.newBuilder(URI.create(callback + "?" + q)).timeout(Duration.ofSeconds(20)).GET().build());
    }

    private HttpResponse<String> call(HttpRequest r) {
        try {
            return client.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---- the WeCom API ---------------------------------------------------------------------------------

    List<Sent> sentTo(String user) {
        return sent.stream().filter(s -> s.to().equals(user)).toList();
    }

    private static Map<String, String> query(HttpExchange x) {
        Map<String, String> q = new HashMap<>();
        String raw = x.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String kv : raw.split("&")) {
                int i = kv.indexOf('=');
                if (i > 0) {
                    q.put(URLDecoder.decode(kv.substring(0, i), StandardCharsets.UTF_8), URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return q;
    }

    private static ObjectNode err(int code, String msg) {
        return LocalJsonServer.JSON.createObjectNode().put("errcode", code).put("errmsg", msg);
    }

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            Map<String, String> q = query(x);
            if (path.startsWith("/xxe")) {
                xxeFetches.incrementAndGet();
                x.sendResponseHeaders(200, 0);
                x.getResponseBody().write("SECRET-FILE-CONTENT".getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (path.equals("/cgi-bin/gettoken")) {
                tokenCalls.incrementAndGet();
                if (!CORP_ID.equals(q.get("corpid")) || !SECRET.equals(q.get("corpsecret"))) {
                    LocalJsonServer.reply(x, 200, err(40001, "invalid credential, hint: [1700000000_1_abc], from ip: 127.0.0.1"));
                    return;
                }
                String t = "tok-" + ids.incrementAndGet() + "-" + Long.toHexString(System.nanoTime());
                valid.add(t);
                LocalJsonServer.reply(x, 200, err(0, "ok").put("access_token", t).put("expires_in", 7200));
                return;
            }
            if (path.equals("/cgi-bin/message/send")) {
                sendCalls.incrementAndGet();
            }
            String t = q.getOrDefault("access_token", "");
            if (!valid.contains(t)) {
                int code = expired.contains(t) ? 42001 : 40014;
                LocalJsonServer.reply(x, 200, err(code, code == 42001 ? "access_token expired" : "invalid access_token"));
                return;
            }
            switch (path) {
                case "/cgi-bin/message/send" -> send(x);
                case "/cgi-bin/media/upload" -> upload(x, q.getOrDefault("type", ""));
                case "/cgi-bin/media/get" -> mediaGet(x, q.getOrDefault("media_id", ""));
                default -> LocalJsonServer.reply(x, 404, err(60020, "not found"));
            }
        }
    }

    private void send(HttpExchange x) throws IOException {
        JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
        if (b.path("agentid").asLong() != AGENT_ID || b.path("touser").asText("").isEmpty()) {
            LocalJsonServer.reply(x, 200, err(40056, "invalid agentid"));
            return;
        }
        Integer code = errors.poll();
        if (code != null) {
            LocalJsonServer.reply(x, 200, err(code, code == -1 ? "system busy" : code == 45009 ? "api freq out of limit" : "error"));
            return;
        }
        String type = b.path("msgtype").asText();
        sent.add(new Sent(b.path("touser").asText(), type, b));
        LocalJsonServer.reply(x, 200, err(0, "ok").put("invaliduser", "").put("msgid", "msg" + ids.incrementAndGet()));
    }

    private void upload(HttpExchange x, String type) throws IOException {
        MultipartForm form = MultipartForm.parse(x.getRequestHeaders().getFirst("Content-Type"), x.getRequestBody().readAllBytes());
        MultipartForm.FilePart f = form.files().stream().filter(p -> p.field().equals("media")).findFirst().orElse(null);
        if (f == null || !Set.of("image", "voice", "video", "file").contains(type)) {
            LocalJsonServer.reply(x, 200, err(40004, "invalid media type"));
            return;
        }
        String id = "3a8asd892asd8asd" + ids.incrementAndGet();
        uploads.add(new Upload(id, type, f.fileName(), f.contentType(), f.bytes()));
        LocalJsonServer.reply(x, 200, err(0, "").put("type", type).put("media_id", id).put("created_at", "1380000000"));
    }

    private void mediaGet(HttpExchange x, String id) throws IOException {
        mediaGets.add(id);
        Object[] m = media.get(id);
        if (m == null) {
            LocalJsonServer.reply(x, 200, err(40007, "invalid media_id"));
            return;
        }
        byte[] bytes = (byte[]) m[0];
        x.getResponseHeaders().add("Content-Type", (String) m[1]);
        x.getResponseHeaders().add("Content-disposition", "attachment; filename=\"MEDIA_ID.jpg\"");
        x.sendResponseHeaders(200, bytes.length);
        x.getResponseBody().write(bytes);
    }

    @Override
    public synchronized void close() {
        if (web != null) {
            web.close();
        }
        server.close();
        client.close();
    }
}
