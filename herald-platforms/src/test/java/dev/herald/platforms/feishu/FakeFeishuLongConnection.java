package dev.herald.platforms.feishu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.platforms.LocalJsonServer;
import io.javalin.Javalin;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The open platform's long-connection side, for these tests, after its SDKs' protocol: {@code POST /callback/ws/endpoint}
 * (served through {@link FakeFeishu}'s HTTP server: AppID and AppSecret checked, code 514 otherwise) answers a
 * {@code ws://127.0.0.1:<port>/ws?device_id=..&service_id=..} URL (each device id good for one connection) and a
 * ClientConfig with a one-second ping interval; the WebSocket exchanges pbbp2 frames. It sends events (whole or split
 * into {@code sum} parts), control frames and raw bytes on demand, answers a ping with a pong carrying the
 * configuration, and records every frame Herald sends, decoded.
 */
final class FakeFeishuLongConnection implements AutoCloseable {
    static final int SERVICE = 33554678;

    /** Every frame Herald sent, decoded. */
    final List<FeishuFrame> received = new CopyOnWriteArrayList<>();
    final AtomicInteger endpointCalls = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    /** While set, the endpoint answers code 514 (auth failed), as for an app not allowed the long connection. */
    volatile boolean refuseEndpoint;
    private final Set<String> unusedDevices = ConcurrentHashMap.newKeySet();
    private final AtomicInteger ids = new AtomicInteger();
    private final Javalin app;
    private volatile WsContext current;

    FakeFeishuLongConnection() {
        app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.ws("/ws", ws -> {
                ws.onConnect(ctx -> {
                    String device = ctx.queryParam("device_id");
                    if (device == null || !unusedDevices.remove(device) || !String.valueOf(SERVICE).equals(ctx.queryParam("service_id"))) {
                        ctx.closeSession(1008, "unknown device");
                        return;
                    }
                    ctx.session.setIdleTimeout(Duration.ofMinutes(5));
                    connections.incrementAndGet();
                    current = ctx;
                });
                ws.onBinaryMessage(ctx -> {
                    ByteBuffer b = ctx.data();
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    FeishuFrame f = FeishuFrame.decode(bytes);
                    received.add(f);
                    if (f.method() == FeishuFrame.CONTROL && f.header("type").equals("ping")) {
                        ctx.send(ByteBuffer.wrap(FeishuFrame.control(SERVICE, "pong", config().toString().getBytes(StandardCharsets.UTF_8)).encode()));
                    }
                });
                ws.onClose(ctx -> {
                    if (current == ctx) {
                        current = null;
                    }
                });
            });
        }).start("127.0.0.1", 0);
    }

    private static ObjectNode config() {
        return LocalJsonServer.JSON.createObjectNode().put("ReconnectCount", -1).put("ReconnectInterval", 1).put("ReconnectNonce", 0)
                .put("PingInterval", 1);
    }

    /** {@code POST /callback/ws/endpoint}, called by {@link FakeFeishu}'s server. */
    void endpoint(HttpExchange x) throws IOException {
        endpointCalls.incrementAndGet();
        JsonNode b = LocalJsonServer.JSON.readTree(x.getRequestBody());
        if (refuseEndpoint || !FakeFeishu.APP_ID.equals(b.path("AppID").asText()) || !FakeFeishu.SECRET.equals(b.path("AppSecret").asText())) {
            LocalJsonServer.reply(x, 200, LocalJsonServer.JSON.createObjectNode().put("code", 514).put("msg", "auth failed"));
            return;
        }
        String device = "dev" + ids.incrementAndGet();
        unusedDevices.add(device);
        ObjectNode a = LocalJsonServer.JSON.createObjectNode().put("code", 0).put("msg", "ok");
        a.putObject("data").put("URL", "ws://127.0.0.1:" + app.port() + "/ws?device_id=" + device + "&service_id=" + SERVICE).set("ClientConfig",
                config());
        LocalJsonServer.reply(x, 200, a);
    }

    boolean connected() {
        return current != null;
    }

    /** Sends {@code eventJson} as one data frame; returns its message_id. */
    String event(String eventJson) {
        return split(eventJson, 1);
    }

    /** Sends {@code eventJson} split into {@code parts} data frames under one message_id, the last part first. */
    String split(String eventJson, int parts) {
        String id = "msg_" + ids.incrementAndGet();
        byte[] all = eventJson.getBytes(StandardCharsets.UTF_8);
        List<byte[]> frames = new ArrayList<>();
        int size = (all.length + parts - 1) / parts;
        for (int i = 0; i < parts; i++) {
            byte[] part = Arrays.copyOfRange(all, Math.min(all.length, i * size), Math.min(all.length, (i + 1) * size));
            frames.add(data(id, parts, i, part));
        }
        for (int i = parts - 1; i >= 0; i--) {
            raw(frames.get(i));
        }
        return id;
    }

    /** A data frame of an event part. */
    static byte[] data(String messageId, int sum, int seq, byte[] payload) {
        List<FeishuFrame.Header> h = List.of(new FeishuFrame.Header("type", "event"), new FeishuFrame.Header("message_id", messageId),
                new FeishuFrame.Header("sum", Integer.toString(sum)), new FeishuFrame.Header("seq", Integer.toString(seq)),
                new FeishuFrame.Header("trace_id", "trace-" + messageId));
        return new FeishuFrame(7, 9, SERVICE, FeishuFrame.DATA, h, "", "", payload, "log-" + messageId).encode();
    }

    void raw(byte[] bytes) {
        WsContext c = current;
        if (c == null) {
            throw new IllegalStateException("no long connection");
        }
        c.send(ByteBuffer.wrap(bytes));
    }

    /** Closes the current connection from the platform's side. */
    void drop() {
        WsContext c = current;
        if (c != null) {
            current = null;
            c.closeSession(1001, "server going away");
        }
    }

    /** Herald's answer to data frame {@code messageId}, if one came. */
    FeishuFrame answerTo(String messageId) {
        return received.stream().filter(f -> f.method() == FeishuFrame.DATA && f.header("message_id").equals(messageId)).findFirst().orElse(null);
    }

    /** The code in Herald's answer to {@code messageId}, or -1 while none came. */
    int codeOf(String messageId) {
        FeishuFrame f = answerTo(messageId);
        if (f == null) {
            return -1;
        }
        try {
            return LocalJsonServer.JSON.readTree(f.payload()).path("code").asInt(-2);
        } catch (IOException e) {
            return -2;
        }
    }

    List<FeishuFrame> pings() {
        return received.stream().filter(f -> f.method() == FeishuFrame.CONTROL && f.header("type").equals("ping")).toList();
    }

    @Override
    public void close() {
        app.stop();
    }
}
