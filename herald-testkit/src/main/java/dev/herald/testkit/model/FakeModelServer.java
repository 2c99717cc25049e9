package dev.herald.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A scripted OpenAI-compatible model server on loopback, for tests in every module (and for process-level
 * tests, where the gateway runs as a child process and the test JVM hosts this).
 *
 * <pre>{@code
 * try (FakeModelServer model = FakeModelServer.start()) {
 *     model.enqueue(Reply.stream("Hel", "lo"), Reply.error(500, "overloaded"));
 *     Hold hold = model.enqueueHeld(Reply.stream("partial ", "rest"), 1);   // one chunk, then wait
 *     ... point the client at model.baseUrl() ...
 *     hold.awaitArrived(Duration.ofSeconds(5)); ... hold.release();
 *     assertThat(model.requests()).hasSize(3);
 *     assertThat(model.lastRequest().lastUserMessage()).isEqualTo("hi");
 * }
 * }</pre>
 *
 * Serves {@code POST /v1/chat/completions} from a queue of {@link Reply}s, one per request, and when the
 * queue is empty from the default reply (an echo: {@code echo: <last user message>}). Serves
 * {@code GET /v1/models}. Records every request. Each request is handled on its own virtual thread, so a
 * held reply blocks nothing else. Closing releases every hold (their connections are cut) and stops.
 */
public final class FakeModelServer implements AutoCloseable {
    static {
        // as a real server would: without TCP_NODELAY the JDK's server holds each small write after the first until the
        // client's delayed ACK (up to 40 ms on Linux), which slows streamed replies and the tests that wait for them
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final java.util.Set<String> clients = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
    private final List<RecordedRequest> recorded = new CopyOnWriteArrayList<>();
    private final List<Hold> holds = new CopyOnWriteArrayList<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private volatile Dialect dialect = Dialect.OPENAI;
    private volatile Function<RecordedRequest, Reply> defaultReply = r -> Reply.text("echo: " + r.lastUserMessage());
    private volatile List<String> models = List.of("fake-model");
    private volatile String requiredApiKey;

    private FakeModelServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
    }

    /** Starts a server on a free loopback port. */
    public static FakeModelServer start() {
        try {
            FakeModelServer fake = new FakeModelServer();
            fake.server.start();
            return fake;
        } catch (IOException e) {
            throw new UncheckedIOException("fake model - cannot start", e);
        }
    }

    /** The API root to configure as {@code model.base_url}, such as {@code http://127.0.0.1:40123/v1}. */
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + port() + "/v1");
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Renders completions that name no dialect like this server. */
    public FakeModelServer dialect(Dialect d) {
        this.dialect = Objects.requireNonNull(d);
        return this;
    }

    /** The model ids {@code GET /v1/models} lists. */
    public FakeModelServer models(String... ids) {
        this.models = List.of(ids);
        return this;
    }

    /** Answers 401 to chat requests whose bearer key differs. */
    public FakeModelServer requireApiKey(String key) {
        this.requiredApiKey = key;
        return this;
    }

    /** The reply used when the script is empty (default: echo the last user message). */
    public FakeModelServer defaultReply(Function<RecordedRequest, Reply> reply) {
        this.defaultReply = Objects.requireNonNull(reply);
        return this;
    }

    /** Appends replies to the script; each answers one chat request, in order. */
    public FakeModelServer enqueue(Reply... replies) {
        for (Reply reply : replies) {
            Hold hold = reply.pacing().hold();
            if (hold != null) {
                holds.add(hold);
            }
            script.add(reply);
        }
        return this;
    }

    /** Appends a reply that sends nothing until the returned hold is released. */
    public Hold enqueueHeld(Reply reply) {
        return enqueueHeld(reply, 0);
    }

    /** Appends a reply that sends its first {@code events} stream events, then waits for the returned hold. */
    public Hold enqueueHeld(Reply reply, int events) {
        Hold hold = new Hold();
        enqueue(reply.heldAfter(events, hold));
        return hold;
    }

    /** Scripted replies not yet used. */
    public int pending() {
        return script.size();
    }

    /** Every chat-completion request so far, oldest first. */
    /** How many TCP connections clients opened so far (distinct client address and port); keep-alive reuse keeps it low. */
    public int connections() {
        return clients.size();
    }

    public List<RecordedRequest> requests() {
        return recorded.stream().filter(r -> r.path().endsWith("/chat/completions")).toList();
    }

    /** Every request so far, including {@code GET /v1/models} and unknown paths. */
    public List<RecordedRequest> allRequests() {
        return List.copyOf(recorded);
    }

    /** The latest chat-completion request; fails when there was none. */
    public RecordedRequest lastRequest() {
        List<RecordedRequest> requests = requests();
        if (requests.isEmpty()) {
            throw new AssertionError("fake model - no chat request was received");
        }
        return requests.get(requests.size() - 1);
    }

    @Override
    public void close() {
        holds.forEach(Hold::drop);
        server.stop(0);
        threads.shutdownNow();
    }

    /** Answers one request; a scripted drop leaves the exchange unclosed so the JDK server cuts the connection mid-response. */
    private void handle(HttpExchange exchange) throws IOException {
        answer(exchange);
        exchange.close();
    }

    private void answer(HttpExchange exchange) throws IOException {
        RecordedRequest request = record(exchange);
        String path = request.path();
        if (request.method().equals("GET") && path.equals("/v1/models")) {
            send(exchange, new Renderer.Rendered(200, "application/json", Map.of(), List.of(modelList()), false), Reply.Pacing.NONE,
                    request);
        } else if (request.method().equals("POST") && path.equals("/v1/chat/completions")) {
            Reply reply = unauthorized(request) ? Reply.error(401, "Incorrect API key provided.") : nextReply(request);
            send(exchange, Renderer.render(reply, request, dialect, sequence.incrementAndGet()), reply.pacing(), request);
        } else {
            send(exchange, Renderer.render(Reply.error(404, "Unknown path " + path), request, dialect, 0), Reply.Pacing.NONE, request);
        }
    }

    private RecordedRequest record(HttpExchange exchange) throws IOException {
        clients.add(String.valueOf(exchange.getRemoteAddress()));
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
        JsonNode json;
        try {
            json = body.isBlank() ? null : JSON.readTree(body);
        } catch (IOException e) {
            json = null;
        }
        RecordedRequest request = new RecordedRequest(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body, json);
        recorded.add(request);
        return request;
    }

    private boolean unauthorized(RecordedRequest request) {
        String key = requiredApiKey;
        return key != null && !("Bearer " + key).equals(request.authorization());
    }

    private Reply nextReply(RecordedRequest request) {
        Reply scripted = script.poll();
        return scripted != null ? scripted : defaultReply.apply(request);
    }

    private String modelList() {
        ObjectNode list = JSON.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (String id : models) {
            data.addObject().put("id", id).put("object", "model").put("created", 0).put("owned_by", "fake");
        }
        return list.toString();
    }

    private void send(HttpExchange exchange, Renderer.Rendered out, Reply.Pacing pacing, RecordedRequest request) throws IOException {
        pause(pacing.delay());
        if (pacing.dropAfter() == 0 || pacing.holdAfter() == 0 && !pacing.hold().arriveAndWait(request)) {
            throw new DroppedConnection();
        }
        exchange.getResponseHeaders().set("Content-Type", out.contentType());
        out.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        if (!out.streamed()) {
            byte[] body = String.join("", out.events()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(out.status(), body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            return;
        }
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(out.status(), 0);
        OutputStream body = exchange.getResponseBody();
        List<String> events = new ArrayList<>(out.events());
        for (int i = 0; i < events.size(); i++) {
            if (i > 0) {
                pause(pacing.gap());
            }
            body.write(events.get(i).getBytes(StandardCharsets.UTF_8));
            body.flush();
            int sent = i + 1;
            if (sent == pacing.dropAfter() || sent == pacing.holdAfter() && !pacing.hold().arriveAndWait(request)) {
                throw new DroppedConnection();
            }
        }
    }

    private static void pause(Duration duration) throws IOException {
        if (duration.isZero()) {
            return;
        }
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DroppedConnection();
        }
    }

    /** Thrown out of the handler so that the JDK server closes the connection without ending the response. */
    private static final class DroppedConnection extends IOException {
        DroppedConnection() {
            super("fake model - connection dropped as scripted", null);
        }
    }
}
