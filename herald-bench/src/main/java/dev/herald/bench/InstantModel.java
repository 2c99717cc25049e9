package dev.herald.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An instant OpenAI-compatible model on loopback for the gateway benchmark: {@code POST /v1/chat/completions},
 * streamed ({@code "stream":true}) or not, always the same short answer in three content chunks, plus
 * {@code GET /v1/models}.
 *
 * <p>Unlike the testkit's {@code FakeModelServer} it records nothing but timings, so it can serve hundreds of
 * thousands of requests with growing bodies in constant memory. Each request is attributed to a benchmark turn
 * by the last {@value #MARKER}{@code <n>]} in its body (the newest user message: earlier turns of a continuing
 * conversation come before it); the server adds up the time it spent on that turn's requests (from having read the
 * whole request to having written the whole response: receiving the body is the gateway's work) and notes when it
 * flushed the first content token, so the driver can subtract the model's own time from what the client saw.
 */
final class InstantModel implements AutoCloseable {
    /** The prefix of the turn marker the driver puts in every user message. */
    static final String MARKER = "[bench-turn:";
    static final String FIRST_TOKEN = "Noted";
    private static final String[] CHUNKS = {FIRST_TOKEN, ", thanks", "."};

    /** What the model spent on one benchmark turn: total nanoseconds, calls, and when it flushed its first token. */
    static final class Spent {
        private final AtomicLong nanos = new AtomicLong();
        private final AtomicLong calls = new AtomicLong();
        private volatile long firstTokenAt;

        long nanos() {
            return nanos.get();
        }

        long calls() {
            return calls.get();
        }

        /** {@link System#nanoTime()} when the first content token of a streamed answer was flushed; 0 if none. */
        long firstTokenAt() {
            return firstTokenAt;
        }
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final ConcurrentHashMap<Long, Spent> spent = new ConcurrentHashMap<>();
    private final AtomicLong unattributed = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final Set<String> connections = ConcurrentHashMap.newKeySet();

    static {
        // the JDK's server leaves Nagle's algorithm on unless told: each streamed event after the first would wait for the
        // gateway's delayed ACK (up to 40 ms on Linux), which a real model server (TCP_NODELAY) does not make it do
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private InstantModel() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
    }

    static InstantModel start() {
        try {
            InstantModel model = new InstantModel();
            model.server.start();
            return model;
        } catch (IOException e) {
            throw new UncheckedIOException("bench model - cannot listen on loopback: " + e.getMessage(), e);
        }
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** Removes and returns what the model spent on {@code turn} (zeros when it never saw that turn). */
    Spent take(long turn) {
        Spent s = spent.remove(turn);
        return s == null ? new Spent() : s;
    }

    /** Chat requests so far. */
    long requests() {
        return requests.get();
    }

    /** TCP connections the gateway opened for chat requests (distinct client ports): keep-alive reuse keeps it low. */
    long connections() {
        return connections.size();
    }

    /** Chat requests that carried no turn marker (e.g. a request the gateway makes on its own). */
    long unattributed() {
        return unattributed.get();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (exchange.getRequestMethod().equals("GET") && path.endsWith("/models")) {
                send(exchange, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"id\":\"bench-model\",\"object\":\"model\","
                        + "\"created\":0,\"owned_by\":\"bench\"}]}");
                return;
            }
            if (!exchange.getRequestMethod().equals("POST") || !path.endsWith("/chat/completions")) {
                send(exchange, 404, "application/json", "{\"error\":{\"message\":\"bench model - no route " + path + "\",\"type\":\"not_found\"}}");
                return;
            }
            requests.incrementAndGet();
            connections.add(String.valueOf(exchange.getRemoteAddress()));
            // ISO-8859-1 maps bytes to chars one to one: the ASCII marker is found without decoding UTF-8
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.ISO_8859_1);
            // the model's time starts once it has the whole request: sending the body is the gateway's work
            long start = System.nanoTime();
            Spent turn = attribute(body);
            long promptTokens = body.length() / 4;
            if (body.contains("\"stream\":true")) {
                stream(exchange, turn, promptTokens, body.contains("\"include_usage\":true"));
            } else {
                send(exchange, 200, "application/json", completion(promptTokens));
            }
            if (turn != null) {
                turn.calls.incrementAndGet();
                turn.nanos.addAndGet(System.nanoTime() - start);
            }
        }
    }

    private Spent attribute(String body) {
        int at = body.lastIndexOf(MARKER);
        if (at < 0) {
            unattributed.incrementAndGet();
            return null;
        }
        long n = 0;
        for (int i = at + MARKER.length(); i < body.length() && Character.isDigit(body.charAt(i)); i++) {
            n = n * 10 + (body.charAt(i) - '0');
        }
        return spent.computeIfAbsent(n, k -> new Spent());
    }

    private static void stream(HttpExchange exchange, Spent turn, long promptTokens, boolean usage) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (int i = 0; i < CHUNKS.length; i++) {
            String delta = (i == 0 ? "{\"role\":\"assistant\",\"content\":\"" : "{\"content\":\"") + CHUNKS[i] + "\"}";
            out.write(event("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench-model\","
                    + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":null}]}"));
            out.flush();
            if (i == 0 && turn != null && turn.firstTokenAt == 0) {
                turn.firstTokenAt = System.nanoTime();
            }
        }
        out.write(event("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench-model\","
                + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"));
        if (usage) {
            out.write(event("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":0,\"model\":\"bench-model\","
                    + "\"choices\":[]," + usage(promptTokens) + "}"));
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String completion(long promptTokens) {
        return "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":0,\"model\":\"bench-model\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"" + String.join("", CHUNKS) + "\"},\"finish_reason\":\"stop\"}],"
                + usage(promptTokens) + "}";
    }

    private static String usage(long promptTokens) {
        return "\"usage\":{\"prompt_tokens\":" + promptTokens + ",\"completion_tokens\":3,\"total_tokens\":" + (promptTokens + 3) + "}";
    }

    private static byte[] event(String json) {
        return ("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
