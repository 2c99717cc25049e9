package dev.herald.platforms.ntfy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformState;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for an ntfy server, written for these tests from ntfy's documentation: {@code GET /<topic>/json}
 * (the newline-delimited JSON stream: an {@code open} event, the cached messages after {@code since=<id>} or from
 * {@code since=<unix time>} on (all of them for an unknown id, as ntfy does), then new
 * messages as they are published and a {@code keepalive} when nothing happens), {@code POST /<topic>} (publish: the body
 * is the message; {@code Title}, {@code Priority}, {@code Tags}, {@code Markdown} headers; RFC 2047 encoded words
 * decoded), {@code PUT /<topic>} (a file, with {@code Filename} and {@code Message}; served at {@code /file/<id>}), and
 * the message JSON as the answer. With a {@link #token} set, every call must carry it as a bearer token (401 with
 * ntfy's error body otherwise). {@link #dropStreams()} cuts every open stream, as a restarting server or a dropped
 * connection would; messages published meanwhile stay in the cache.
 */
final class FakeNtfy implements AutoCloseable {
    static final String TOPIC = "herald_phone_7c1f";
    static final String TOKEN = "tk_fake0ntfy0access0token0abcdef";

    /** A message in the cache, with the headers it was published with. */
    record Message(ObjectNode json, Map<String, String> headers, byte[] file) {
        String id() {
            return json.path("id").asText();
        }

        String text() {
            return json.path("message").asText();
        }

        String topic() {
            return json.path("topic").asText();
        }

        boolean byHerald() {
            return !headers.containsKey("x-test-user");
        }
    }

    final List<Message> cache = new CopyOnWriteArrayList<>();
    /** The query of every stream request ("" for none). */
    final List<String> subscriptions = new CopyOnWriteArrayList<>();
    /** The Authorization header of every request (or "none"). */
    final List<String> auth = new CopyOnWriteArrayList<>();
    final List<String> fileGets = new CopyOnWriteArrayList<>();
    final AtomicInteger openStreams = new AtomicInteger();
    volatile String token = TOKEN;
    /** While set, stream requests are answered 503 (a server that is down). */
    volatile boolean down;
    volatile Duration keepalive = Duration.ofMillis(300);
    private final List<BlockingQueue<String>> streams = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger(100);
    private final LocalJsonServer server;
    volatile NtfySettings settings;
    private volatile MediaFetchers current;

    FakeNtfy() {
        server = new LocalJsonServer(this::serve);
        settings = NtfySettings.of(server.baseUrl(), TOPIC, TOKEN);
    }

    String baseUrl() {
        return server.baseUrl();
    }

    static NtfySettings.Timing timing() {
        return new NtfySettings.Timing(Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(3), Duration.ofSeconds(3),
                Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofMillis(200));
    }

    GatewayFixture herald() {
        GatewayFixture[] holder = new GatewayFixture[1];
        holder[0] = new GatewayFixture(clock -> adapter(clock, holder[0].storage.platformState())).allow(TOPIC).closing(this)
                .readyWhen(() -> openStreams.get() > 0);
        return holder[0];
    }

    private NtfyAdapter adapter(Clock clock, PlatformState state) {
        MediaFetchers f = new MediaFetchers();
        NtfyAdapter a = NtfyPlugin.create(settings, timing(), new PlatformContext(NtfyAdapter.PLATFORM, clock,
                Path.of(System.getProperty("java.io.tmpdir")), state, f));
        current = f;
        return a;
    }

    dev.herald.core.platform.MediaFetcher fetcher() {
        return current.of("ntfy").orElseThrow();
    }

    // ---- a person with the ntfy app ----------------------------------------------------------------

    /** A person publishes {@code text} to {@code topic} (from the app: no Herald tag). */
    Message userPublishes(String topic, String text, String title) {
        ObjectNode m = message(topic, text);
        if (title != null) {
            m.put("title", title);
        }
        return add(new Message(m, Map.of("x-test-user", "yes"), null));
    }

    /** A person sends a file (PUT) with {@code name} and {@code type}, served from the fake at /file/<id>. */
    Message userAttaches(String topic, String name, String type, byte[] bytes, String urlOverride) {
        ObjectNode m = message(topic, "You received a file: " + name);
        String url = urlOverride != null ? urlOverride : baseUrl() + "/file/" + m.path("id").asText() + ext(name);
        m.putObject("attachment").put("name", name).put("type", type).put("size", bytes.length)
                .put("expires", Instant.now().plusSeconds(10_800).getEpochSecond()).put("url", url);
        return add(new Message(m, Map.of("x-test-user", "yes"), bytes));
    }

    /** Pushes a raw line into every open stream. */
    void pushRaw(String line) {
        streams.forEach(q -> q.add(line));
    }

    /** Cuts every open stream. */
    void dropStreams() {
        streams.forEach(q -> q.add("\u0000drop"));
    }

    List<Message> byHerald() {
        return cache.stream().filter(Message::byHerald).toList();
    }

    List<Message> byHerald(String topic) {
        return byHerald().stream().filter(m -> m.topic().equals(topic)).toList();
    }

    private static String ext(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot);
    }

    private ObjectNode message(String topic, String text) {
        return LocalJsonServer.JSON.createObjectNode().put("id", "Nt" + ids.incrementAndGet() + "x").put("time", Instant.now().getEpochSecond())
                .put("expires", Instant.now().plusSeconds(43_200).getEpochSecond()).put("event", "message").put("topic", topic)
                .put("message", text);
    }

    private Message add(Message m) {
        cache.add(m);
        String line = m.json().toString();
        if (m.topic().equals(TOPIC)) {
            streams.forEach(q -> q.add(line));
        }
        return m;
    }

    // ---- the server ------------------------------------------------------------------------------------

    private void serve(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath();
            String authz = x.getRequestHeaders().getFirst("Authorization");
            auth.add(authz == null ? "none" : authz);
            if (path.startsWith("/file/")) {
                fileGets.add(path);
                Message m = cache.stream().filter(c -> path.startsWith("/file/" + c.id())).findFirst().orElse(null);
                if (m == null || m.file() == null) {
                    error(x, 404, 40401, "page not found");
                    return;
                }
                x.getResponseHeaders().add("Content-Type", m.json().path("attachment").path("type").asText("application/octet-stream"));
                x.sendResponseHeaders(200, m.file().length);
                x.getResponseBody().write(m.file());
                return;
            }
            if (token != null && !("Bearer " + token).equals(authz)) {
                error(x, 401, 40101, "unauthorized");
                return;
            }
            String[] parts = path.substring(1).split("/");
            if (parts.length == 2 && parts[1].equals("json") && x.getRequestMethod().equals("GET") && down) {
                error(x, 503, 50301, "service unavailable");
            } else if (parts.length == 2 && parts[1].equals("json") && x.getRequestMethod().equals("GET")) {
                stream(x, parts[0], x.getRequestURI().getRawQuery());
            } else if (parts.length == 1 && x.getRequestMethod().equals("POST")) {
                publish(x, parts[0]);
            } else if (parts.length == 1 && x.getRequestMethod().equals("PUT")) {
                attach(x, parts[0]);
            } else {
                error(x, 404, 40401, "page not found");
            }
        }
    }

    private static void error(HttpExchange x, int http, int code, String text) throws IOException {
        LocalJsonServer.reply(x, http, LocalJsonServer.JSON.createObjectNode().put("code", code).put("http", http).put("error", text)
                .put("link", "https://ntfy.sh/docs/publish/#authentication"));
    }

    static String decode(String header) {
        if (header != null && header.startsWith("=?UTF-8?B?") && header.endsWith("?=")) {
            return new String(java.util.Base64.getDecoder().decode(header.substring(10, header.length() - 2)), StandardCharsets.UTF_8);
        }
        return header;
    }

    private Map<String, String> headersOf(HttpExchange x) {
        Map<String, String> h = new ConcurrentHashMap<>();
        x.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), v.getFirst()));
        return h;
    }

    private void decorate(ObjectNode m, Map<String, String> h) {
        if (h.containsKey("title")) {
            m.put("title", decode(h.get("title")));
        }
        if (h.containsKey("priority")) {
            m.put("priority", Integer.parseInt(h.get("priority")));
        }
        if (h.containsKey("tags")) {
            ArrayNode tags = m.putArray("tags");
            for (String t : h.get("tags").split(",")) {
                tags.add(t.strip());
            }
        }
        if ("yes".equals(h.get("markdown"))) {
            m.put("content_type", "text/markdown");
        }
    }

    private void publish(HttpExchange x, String topic) throws IOException {
        Map<String, String> h = headersOf(x);
        ObjectNode m = message(topic, new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        decorate(m, h);
        add(new Message(m, h, null));
        LocalJsonServer.reply(x, 200, m);
    }

    private void attach(HttpExchange x, String topic) throws IOException {
        Map<String, String> h = headersOf(x);
        byte[] bytes = x.getRequestBody().readAllBytes();
        String name = h.getOrDefault("filename", "file");
        ObjectNode m = message(topic, h.containsKey("message") ? decode(h.get("message")) : "You received a file: " + name);
        decorate(m, h);
        m.putObject("attachment").put("name", name).put("type", h.getOrDefault("content-type", "application/octet-stream"))
                .put("size", bytes.length).put("url", baseUrl() + "/file/" + m.path("id").asText() + ext(name));
        add(new Message(m, h, bytes));
        LocalJsonServer.reply(x, 200, m);
    }

    private void stream(HttpExchange x, String topic, String query) throws IOException {
        subscriptions.add(query == null ? "" : URLDecoder.decode(query, StandardCharsets.UTF_8));
        String since = null;
        if (query != null && query.startsWith("since=")) {
            since = URLDecoder.decode(query.substring(6), StandardCharsets.UTF_8);
        }
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        List<String> backlog = new ArrayList<>();
        synchronized (this) {
            if (since != null) {
                int at = -1;
                for (int i = 0; i < cache.size(); i++) {
                    if (cache.get(i).id().equals(since)) {
                        at = i;
                    }
                }
                long time = at < 0 && since.matches("[0-9]{1,12}") ? Long.parseLong(since) : Long.MIN_VALUE;
                for (int i = at + 1; i < cache.size(); i++) {
                    if (cache.get(i).topic().equals(topic) && cache.get(i).json().path("time").asLong() >= time) {
                        backlog.add(cache.get(i).json().toString());
                    }
                }
            }
            streams.add(q);
        }
        x.getResponseHeaders().add("Content-Type", "application/x-ndjson; charset=utf-8");
        x.sendResponseHeaders(200, 0);
        OutputStream out = x.getResponseBody();
        openStreams.incrementAndGet();
        try {
            write(out, "{\"id\":\"Op" + ids.incrementAndGet() + "\",\"time\":" + Instant.now().getEpochSecond() + ",\"event\":\"open\",\"topic\":\""
                    + topic + "\"}");
            for (String line : backlog) {
                write(out, line);
            }
            while (true) {
                String line = q.poll(keepalive.toMillis(), TimeUnit.MILLISECONDS);
                if (line == null) {
                    line = "{\"id\":\"Ka" + ids.incrementAndGet() + "\",\"time\":" + Instant.now().getEpochSecond()
                            + ",\"event\":\"keepalive\",\"topic\":\"" + topic + "\"}";
                } else if (line.equals("\u0000drop")) {
                    return;
                }
                write(out, line);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException gone) {
            // the client went away
        } finally {
            streams.remove(q);
            openStreams.decrementAndGet();
        }
    }

    private static void write(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Override
    public void close() {
        dropStreams();
        server.close();
    }
}
