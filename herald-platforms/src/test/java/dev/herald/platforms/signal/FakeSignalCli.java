package dev.herald.platforms.signal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.herald.platforms.GatewayFixture;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * signal-cli's HTTP daemon ({@code signal-cli -a +NUMBER daemon --http --receive-mode on-connection}) on loopback, as its
 * documentation and source describe it: {@code POST /api/v1/rpc} takes one JSON-RPC 2.0 request with
 * {@code Content-Type: application/json} (else 415) and answers {@code result} or {@code error} ({@code code},
 * {@code message}, {@code data.response} for a failed send); {@code GET /api/v1/events} is a server-sent event stream
 * whose events are {@code id:<start time>-<sequence>}, {@code event:receive}, {@code data:<envelope json>} with
 * {@code :} keep-alive comments; {@code GET /api/v1/check} answers 200. The last 1,000 events are kept; a client sending
 * {@code Last-Event-ID} first gets the kept events after it, or all kept events when the id is from another run.
 * Messages "from Signal" wait on Signal's side while no client is connected (receive mode on-connection) and flow in
 * when one connects. {@link #restart} stops the daemon and starts a new run on the same port (new id prefix, nothing
 * kept).
 */
final class FakeSignalCli implements AutoCloseable {
    static final String BOT = "+15550000001";
    static final String BOT_UUID = "0b0b0b0b-0000-4000-8000-000000000001";
    static final String ALICE = "+15550000002";
    static final String ALICE_UUID = "a11ce000-0000-4000-8000-000000000002";
    static final String BOB = "+15550000003";
    static final String BOB_UUID = "b0b00000-0000-4000-8000-000000000003";
    static final String GROUP = "c2lnbmFsLWdyb3VwLWlkLWZvci10ZXN0cy0wMDAwMDE=";
    static final int KEPT = 1000;

    /** One JSON-RPC call the daemon received. */
    record Call(String method, JsonNode params) {
    }

    /** How the next {@code send} fails: a JSON-RPC error as signal-cli writes it. */
    record Failure(int code, String message, JsonNode data) {
    }

    private record Event(long sequence, String data) {
    }

    private final class Client {
        final BlockingQueue<String> out = new LinkedBlockingQueue<>();
        volatile boolean closed;
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final Queue<Failure> sendFailures = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final Map<String, byte[]> attachments = new ConcurrentHashMap<>();
    final AtomicInteger streamsOpened = new AtomicInteger();
    final List<String> lastEventIds = new CopyOnWriteArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_713_000_000_000L);
    private final List<Client> clients = new CopyOnWriteArrayList<>();
    private final Queue<String> atSignal = new ArrayDeque<>();
    private final ArrayDeque<Event> kept = new ArrayDeque<>();
    /**
     * The daemon's default receive mode (on-start): it keeps receiving while no client is connected, and once a client has
     * connected in this run, keeps those events for the next client's {@code Last-Event-ID}; false is on-connection.
     */
    volatile boolean keepWhileAway;
    private boolean recording;
    private HttpServer server;
    private boolean running;
    private int port;
    private String idPrefix;
    private long nextSequence;

    FakeSignalCli() {
        start(0);
    }

    private synchronized void start(int onPort) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/api/v1/rpc", this::rpc);
        server.createContext("/api/v1/events", this::events);
        server.createContext("/api/v1/check", ex -> {
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        running = true;
        port = server.getAddress().getPort();
        idPrefix = System.nanoTime() + "-";
        nextSequence = 1;
        kept.clear();
        recording = false;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The daemon stops (its streams end, nothing kept survives) and a new run starts on the same port. */
    void restart() {
        stop();
        start(port);
    }

    /** The daemon stops; Signal keeps what arrives meanwhile. */
    void stop() {
        HttpServer stopping;
        synchronized (this) {
            for (Client c : clients) {
                c.closed = true;
            }
            clients.clear();
            stopping = running ? server : null;
            running = false;
        }
        if (stopping != null) {
            stopping.stop(0);
        }
    }

    /** Starts a stopped daemon again on the same port. */
    void startAgain() {
        start(port);
    }

    /** Ends every open event stream (as a dropped connection would); the daemon keeps running and keeps its events. */
    synchronized void dropStreams() {
        for (Client c : clients) {
            c.closed = true;
        }
        clients.clear();
    }

    synchronized boolean connected() {
        return !clients.isEmpty();
    }

    GatewayFixture herald(String... allowed) {
        return herald(s -> { }, allowed);
    }

    /** A fixture whose adapter talks to this daemon, keeps its stream position in the fixture's store, and closes it after the test. */
    GatewayFixture herald(Consumer<SignalSettings[]> tweak, String... allowed) {
        GatewayFixture[] fixture = new GatewayFixture[1];
        fixture[0] = new GatewayFixture(clock -> {
            SignalSettings[] s = {SignalSettings.of(url(), BOT)};
            tweak.accept(s);
            return new SignalAdapter(s[0], timing(), clock, fixture[0].storage.platformState());
        }).allow(allowed).readyWhen(this::connected).closing(this);
        return fixture[0];
    }

    static SignalSettings.Timing timing() {
        return new SignalSettings.Timing(Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(2), Duration.ofSeconds(10),
                Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    // ---- messages from Signal ---------------------------------------------------------------------------------------

    long nextTimestamp() {
        return clock.addAndGet(1000);
    }

    /** A direct message from {@code uuid} / {@code number} (null: hidden), as signal-cli writes it; returns its timestamp. */
    long dm(String uuid, String number, String text) {
        long ts = nextTimestamp();
        deliver(envelope(uuid, number, ts, data(ts, text)));
        return ts;
    }

    /** A group message; {@code mentionBot} puts an @mention of the bot (U+FFFC) in front of the text. */
    long group(String uuid, String number, String text, boolean mentionBot) {
        long ts = nextTimestamp();
        ObjectNode data = data(ts, mentionBot ? "\uFFFC " + text : text);
        data.putObject("groupInfo").put("groupId", GROUP).put("groupName", "Test group").put("revision", 3).put("type", "DELIVER");
        if (mentionBot) {
            data.putArray("mentions").addObject().put("name", BOT).put("number", BOT).put("uuid", BOT_UUID).put("start", 0).put("length", 1);
        }
        deliver(envelope(uuid, number, ts, data));
        return ts;
    }

    static ObjectNode data(long ts, String text) {
        ObjectNode d = LocalJsonServer.JSON.createObjectNode().put("timestamp", ts);
        if (text != null) {
            d.put("message", text);
        } else {
            d.putNull("message");
        }
        d.put("expiresInSeconds", 0).put("viewOnce", false);
        d.putArray("mentions");
        d.putArray("attachments");
        d.putArray("contacts");
        return d;
    }

    static ObjectNode envelope(String uuid, String number, long ts, ObjectNode dataMessage) {
        ObjectNode root = LocalJsonServer.JSON.createObjectNode();
        ObjectNode e = root.putObject("envelope");
        e.put("source", number != null ? number : uuid);
        if (number != null) {
            e.put("sourceNumber", number);
        } else {
            e.putNull("sourceNumber");
        }
        e.put("sourceUuid", uuid).put("sourceName", "Name of " + uuid.substring(0, 4)).put("sourceDevice", 1).put("timestamp", ts)
                .put("serverReceivedTimestamp", ts + 5).put("serverDeliveredTimestamp", ts + 9);
        if (dataMessage != null) {
            e.set("dataMessage", dataMessage);
        }
        root.put("account", BOT);
        return root;
    }

    /** A received envelope reaches the daemon from Signal: kept and streamed when a client is connected, else waits at Signal. */
    synchronized void deliver(JsonNode received) {
        deliverRaw(received.toString());
    }

    /** Any text as one event's data (the fuzz tests' malformed envelopes). */
    synchronized void deliverRaw(String data) {
        if (clients.isEmpty() && !(keepWhileAway && recording)) {
            atSignal.add(data);
            return;
        }
        record(data);
    }

    private void record(String data) {
        Event e = new Event(nextSequence++, data);
        kept.addLast(e);
        if (kept.size() > KEPT) {
            kept.removeFirst();
        }
        for (Client c : clients) {
            c.out.add(frame(e));
        }
    }

    /** Raw bytes written to every open stream as they are (malformed streams). */
    synchronized void writeRaw(String text) {
        for (Client c : clients) {
            c.out.add(text);
        }
    }

    private String frame(Event e) {
        return "id:" + idPrefix + e.sequence + "\nevent:receive\ndata:" + e.data + "\n\n";
    }

    // ---- HTTP ------------------------------------------------------------------------------------------------------

    private void events(HttpExchange ex) throws IOException {
        if (!ex.getRequestMethod().equals("GET") || !ex.getRequestURI().getPath().equals("/api/v1/events")) {
            ex.sendResponseHeaders(ex.getRequestMethod().equals("GET") ? 404 : 405, -1);
            ex.close();
            return;
        }
        String query = ex.getRequestURI().getRawQuery();
        if (query != null && query.startsWith("account=") && !java.net.URLDecoder.decode(query.substring(8), StandardCharsets.UTF_8).equals(BOT)) {
            ex.sendResponseHeaders(400, -1);
            ex.close();
            return;
        }
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream body = ex.getResponseBody();
        body.flush();
        Client client = new Client();
        String last = ex.getRequestHeaders().getFirst("Last-Event-ID");
        lastEventIds.add(last == null ? "" : last);
        synchronized (this) {
            if (last != null) {
                long after = last.startsWith(idPrefix) ? parse(last.substring(idPrefix.length())) : 0;
                for (Event e : kept) {
                    if (e.sequence > after) {
                        client.out.add(frame(e));
                    }
                }
            }
            clients.add(client);
            recording = true;
            streamsOpened.incrementAndGet();
            while (!atSignal.isEmpty()) {
                record(atSignal.poll());
            }
        }
        try {
            while (!client.closed) {
                String next = client.out.poll(200, TimeUnit.MILLISECONDS);
                body.write((next == null ? ":\n" : next).getBytes(StandardCharsets.UTF_8));
                body.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the client went away
        } finally {
            synchronized (this) {
                clients.remove(client);
            }
            ex.close();
        }
    }

    private static long parse(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void rpc(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("POST")) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type == null || !type.startsWith("application/json")) {
                ex.sendResponseHeaders(415, -1);
                return;
            }
            JsonNode request = LocalJsonServer.JSON.readTree(ex.getRequestBody());
            JsonNode id = request.path("id");
            String method = request.path("method").asText("");
            JsonNode params = request.path("params");
            calls.add(new Call(method, params));
            ObjectNode answer = LocalJsonServer.JSON.createObjectNode().put("jsonrpc", "2.0");
            switch (method) {
                case "send" -> {
                    Failure f = sendFailures.poll();
                    if (f != null) {
                        error(answer, f.code(), f.message(), f.data());
                    } else {
                        ObjectNode result = answer.putObject("result").put("timestamp", nextTimestamp());
                        ArrayNode results = result.putArray("results");
                        ObjectNode r = results.addObject();
                        if (params.has("groupId")) {
                            r.put("groupId", params.path("groupId").asText());
                        }
                        r.putObject("recipientAddress").put("uuid", ALICE_UUID).put("number", ALICE);
                        r.put("type", "SUCCESS");
                    }
                }
                case "sendTyping" -> answer.putObject("result");
                case "getAttachment" -> {
                    byte[] bytes = attachments.get(params.path("id").asText());
                    if (bytes == null) {
                        error(answer, -1, "Could not find attachment with ID: " + params.path("id").asText(), null);
                    } else {
                        answer.putObject("result").put("data", Base64.getEncoder().encodeToString(bytes));
                    }
                }
                default -> error(answer, -32601, "Method not implemented", null);
            }
            answer.set("id", id);
            LocalJsonServer.reply(ex, 200, answer);
        }
    }

    private static void error(ObjectNode answer, int code, String message, JsonNode data) {
        ObjectNode e = answer.putObject("error").put("code", code).put("message", message);
        if (data == null) {
            e.putNull("data");
        } else {
            e.set("data", data);
        }
    }

    /** A send failing for its one recipient with {@code type} (signal-cli's result types), as the daemon reports it. */
    static Failure failure(int code, String message, String type, Long retryAfterSeconds) {
        ObjectNode data = LocalJsonServer.JSON.createObjectNode();
        ObjectNode response = data.putObject("response").put("timestamp", 1_712_000_999_000L);
        ObjectNode r = response.putArray("results").addObject();
        r.putObject("recipientAddress").put("uuid", ALICE_UUID).put("number", ALICE);
        r.put("type", type);
        if (retryAfterSeconds != null) {
            r.put("retryAfterSeconds", retryAfterSeconds);
        }
        return new Failure(code, message, data);
    }

    List<Call> calls(String method) {
        return calls.stream().filter(c -> c.method().equals(method)).toList();
    }

    /** The {@code send} calls to {@code chat} (a recipient or the group). */
    List<JsonNode> sendsTo(String chat) {
        List<JsonNode> out = new ArrayList<>();
        for (Call c : calls("send")) {
            JsonNode p = c.params();
            boolean match = chat.equals(p.path("groupId").asText(null));
            for (JsonNode r : p.path("recipient")) {
                match |= chat.equals(r.asText());
            }
            if (match) {
                out.add(p);
            }
        }
        return out;
    }

    List<String> textsTo(String chat) {
        return sendsTo(chat).stream().map(p -> p.path("message").asText()).toList();
    }

    @Override
    public void close() {
        stop();
    }
}
