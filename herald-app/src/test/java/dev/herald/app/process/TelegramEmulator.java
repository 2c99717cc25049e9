package dev.herald.app.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The npm {@code telegram-test-api} Bot API emulator (the one the Telegram adapter's tests use, installed under
 * herald-platforms), as a node process on a free loopback port, for tests of real {@code herald run} nodes: users write
 * with {@link #userSays}, and {@link #botTexts} reads what the bot sent.
 */
final class TelegramEmulator implements AutoCloseable {
    static final Path DIR = Path.of("../herald-platforms/src/test/node");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private TelegramEmulator(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static TelegramEmulator start() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/telegram-test-api"))) {
            throw new AssertionError("telegram-test-api is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder("node", "start-emulator.js", Integer.toString(port)).directory(DIR.toFile())
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null && !l.contains("listening")) {
                    // skip
                }
                return l;
            } catch (IOException e) {
                return null;
            }
        }).get(20, TimeUnit.SECONDS);
        if (line == null) {
            p.destroyForcibly();
            throw new AssertionError("telegram-test-api did not start");
        }
        Thread.ofVirtual().start(() -> {
            try {
                while (out.readLine() != null) {
                    // the emulator's own output is not needed
                }
            } catch (IOException e) {
                // it ended
            }
        });
        return new TelegramEmulator(p, port);
    }

    String apiBase() {
        return "http://127.0.0.1:" + port;
    }

    /** Writes {@code text} as user {@code userId} in a private chat with the bot. */
    void userSays(String token, long userId, String text) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("botToken", token);
        m.put("from", Map.of("id", userId, "first_name", "User" + userId, "username", "user" + userId, "is_bot", false));
        m.put("chat", Map.of("id", userId, "type", "private"));
        m.put("date", System.currentTimeMillis() / 1000);
        m.put("text", text);
        post("/sendMessage", m);
    }

    /** The texts the bot sent to {@code chatId}, in order. */
    List<String> botTexts(String token, long chatId) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode item : post("/getUpdatesHistory", Map.of("token", token)).path("result")) {
            JsonNode body = item.path("message");
            if (body.has("chat_id") && body.get("chat_id").asText().equals(Long.toString(chatId))) {
                out.add(body.path("text").asText());
            }
        }
        return out;
    }

    private JsonNode post(String path, Object body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(apiBase() + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build();
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new AssertionError("emulator " + path + " answered HTTP " + resp.statusCode() + ": " + resp.body());
        }
        return JSON.readTree(resp.body());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
