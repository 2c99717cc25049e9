package dev.herald.testkit.voice;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An OpenAI-compatible {@code POST /v1/audio/speech} on a free loopback port that really speaks: the request's
 * {@code input} is said by espeak-ng and encoded by opusenc ({@link Speech}), so the answer is a playable OGG/Opus file
 * ({@code response_format} {@code opus}; {@code wav} gives the WAV). Each request's JSON body is recorded.
 */
public final class FakeSpeechServer implements AutoCloseable {
    private static final Pattern FIELD = Pattern.compile("\"(input|response_format)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final HttpServer server;
    private final Path dir;
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());

    private FakeSpeechServer(Path dir) throws IOException {
        this.dir = dir;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/audio/speech", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** Writes its temporary audio files under {@code dir}. */
    public static FakeSpeechServer start(Path dir) {
        try {
            return new FakeSpeechServer(dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    /** The JSON bodies asked for, in order. */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(body);
            String input = null;
            String format = "mp3";
            Matcher m = FIELD.matcher(body);
            while (m.find()) {
                String value = m.group(2).replace("\\n", " ").replace("\\\"", "\"").replace("\\\\", "\\");
                if (m.group(1).equals("input")) {
                    input = value;
                } else {
                    format = value;
                }
            }
            if (input == null || input.isBlank()) {
                reply(ex, 400, "application/json", "{\"error\":{\"message\":\"input is required\"}}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            try {
                byte[] audio = switch (format) {
                    case "opus" -> Speech.oggOpus(input, dir);
                    case "wav" -> Speech.wav(input, dir);
                    default -> null;
                };
                if (audio == null) {
                    reply(ex, 400, "application/json", ("{\"error\":{\"message\":\"response_format " + format + " is not served here\"}}")
                            .getBytes(StandardCharsets.UTF_8));
                    return;
                }
                reply(ex, 200, format.equals("opus") ? "audio/ogg" : "audio/wav", audio);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply(ex, 500, "application/json", "{\"error\":{\"message\":\"interrupted\"}}".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private static void reply(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
