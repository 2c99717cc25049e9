package dev.herald.app.process;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The npm {@code telegram-test-api} Bot API emulator (installed for herald-platforms' tests) as a node process on a
 * free loopback port, for process-level tests of a real {@code herald run}: Herald's Telegram adapter polls it, and
 * the test reads what the bot sent ({@code POST /getUpdatesHistory}).
 */
final class TelegramEmulator implements AutoCloseable {
    static final Path DIR = Path.of("../herald-platforms/src/test/node");

    /** One message the bot sent to a chat. */
    record BotMessage(String chatId, String text) {
    }

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private TelegramEmulator(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the emulator; fails (never skips) with the install command when its packages are missing. */
    static TelegramEmulator start() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/telegram-test-api"))) {
            throw new AssertionError("telegram-test-api is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder("node", "start-emulator.js", Integer.toString(port)).directory(DIR.toFile()).redirectErrorStream(true)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.contains("listening")) {
                        return l;
                    }
                }
                return "(ended)";
            } catch (IOException e) {
                return e.toString();
            }
        }).get(20, TimeUnit.SECONDS);
        if (!line.contains("listening")) {
            p.destroyForcibly();
            throw new AssertionError("telegram-test-api did not start: " + line);
        }
        Thread.ofVirtual().start(() -> {
            try {
                while (out.readLine() != null) {
                    // the emulator's own output is not needed
                }
            } catch (IOException ignored) {
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
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("botToken", token);
        m.put("from", Map.of("id", userId, "first_name", "User" + userId, "username", "user" + userId, "is_bot", false));
        m.put("chat", Map.of("id", userId, "type", "private"));
        m.put("date", System.currentTimeMillis() / 1000);
        m.put("text", text);
        HttpRequest r = HttpRequest.newBuilder(URI.create(apiBase() + "/sendMessage")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(HeraldProcess.JSON.writeValueAsString(m))).build();
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new AssertionError("emulator /sendMessage answered HTTP " + resp.statusCode() + ": " + resp.body());
        }
    }

    /** The texts the bot sent to {@code chatId}, in order. */
    List<String> botTexts(String token, long chatId) throws Exception {
        return botMessages(token, chatId).stream().map(BotMessage::text).toList();
    }

    /** Everything the bot sent to {@code chatId}, in order. */
    List<BotMessage> botMessages(String token, long chatId) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(apiBase() + "/getUpdatesHistory")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(HeraldProcess.JSON.writeValueAsString(Map.of("token", token)))).build();
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new AssertionError("emulator /getUpdatesHistory answered HTTP " + resp.statusCode() + ": " + resp.body());
        }
        List<BotMessage> out = new ArrayList<>();
        for (JsonNode item : HeraldProcess.JSON.readTree(resp.body()).path("result")) {
            JsonNode body = item.path("message");
            // bot messages are kept as their sendMessage body (chat_id); a user's carry a chat object
            if (body.has("chat_id") && body.get("chat_id").asText().equals(Long.toString(chatId))) {
                out.add(new BotMessage(body.get("chat_id").asText(), body.path("text").asText()));
            }
        }
        return out;
    }

    /** Waits until the bot's messages to {@code chatId} satisfy {@code condition}; returns them. */
    List<BotMessage> awaitBot(String token, long chatId, Predicate<List<BotMessage>> condition, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        List<BotMessage> seen = botMessages(token, chatId);
        while (!condition.test(seen)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("emulator - bot messages to chat " + chatId + " never matched within " + max.toSeconds() + " s; saw: "
                        + seen.stream().map(BotMessage::text).toList());
            }
            Thread.sleep(100);
            seen = botMessages(token, chatId);
        }
        return seen;
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
