package dev.herald.platforms;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * The HTTP side of a fake polled platform API (the Bot API fake, the iLink fake): a loopback server on a
 * free port, every request to one handler on a virtual thread, JSON answers.
 */
public final class LocalJsonServer implements AutoCloseable {
    static {
        // as a real server would: without TCP_NODELAY the JDK's server holds each small write after the first until the
        // client's delayed ACK (up to 40 ms on Linux), which slows streamed replies and the tests that wait for them
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    public static final ObjectMapper JSON = JsonMapper.builder().build();

    private final HttpServer server;

    public LocalJsonServer(HttpHandler handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", handler);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers {@code status} with {@code body} as JSON. */
    public static void reply(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    /** Holds a long poll that has nothing to return for a moment, as the real servers do (briefly, for tests). */
    public static void holdEmptyPoll() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
