package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
import java.util.function.Predicate;

/**
 * The npm {@code telegram-test-api} Bot API emulator, started as a node process on a free port. The bot
 * side is the real adapter pointed at {@link #apiBase()}; the user side is the emulator's client API
 * ({@code POST /sendMessage} to write as a user, {@code POST /getUpdatesHistory} to read what the bot sent).
 */
final class Emulator implements AutoCloseable {
    static final Path DIR = Path.of("src/test/node");
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /** One message the bot sent, as the emulator stored it (the Bot API request body). */
    record BotMessage(long messageId, String chatId, String text, JsonNode body) {
        Long threadId() {
            return body.hasNonNull("message_thread_id") ? body.get("message_thread_id").asLong() : null;
        }
    }

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private Emulator(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the emulator; fails (never skips) with the install command when its packages are missing. */
    static Emulator start() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/telegram-test-api"))) {
            throw new AssertionError("telegram-test-api is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            Process p = new ProcessBuilder("node", "start-emulator.js", Integer.toString(port)).directory(DIR.toFile())
                    .redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readUntilListening(out));
            String line = ready.get(20, TimeUnit.SECONDS);
            if (line != null && line.contains("listening")) {
                Thread.ofVirtual().start(() -> drain(out));
                return new Emulator(p, port);
            }
            p.destroyForcibly();
            if (attempt == 3) {
                throw new AssertionError("telegram-test-api did not start: " + line);
            }
        }
    }

    String apiBase() {
        return "http://127.0.0.1:" + port;
    }

    /** Writes {@code text} as a user; {@code extra} fields are merged into the message (thread ids, chat type). */
    void userSays(String token, long chatId, String chatType, long userId, String text, Map<String, Object> extra) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("botToken", token);
        m.put("from", Map.of("id", userId, "first_name", "User" + userId, "username", "user" + userId, "is_bot", false));
        Map<String, Object> chat = new LinkedHashMap<>();
        chat.put("id", chatId);
        chat.put("type", chatType);
        if (!chatType.equals("private")) {
            chat.put("title", "Group " + chatId);
        }
        m.put("chat", chat);
        m.put("date", System.currentTimeMillis() / 1000);
        m.put("text", text);
        m.putAll(extra);
        post("/sendMessage", m);
    }

    void userSays(String token, long userId, String text) throws Exception {
        userSays(token, userId, "private", userId, text, Map.of());
    }

    /** Everything the bot sent to {@code chatId}, in order (does not consume anything). */
    List<BotMessage> botMessages(String token, long chatId) throws Exception {
        JsonNode history = post("/getUpdatesHistory", Map.of("token", token)).path("result");
        List<BotMessage> out = new ArrayList<>();
        for (JsonNode item : history) {
            JsonNode body = item.path("message");
            // bot messages are stored as their sendMessage body (chat_id); user messages carry a chat object
            if (body.has("chat_id") && body.get("chat_id").asText().equals(Long.toString(chatId))) {
                out.add(new BotMessage(item.path("messageId").asLong(), body.get("chat_id").asText(), body.path("text").asText(), body));
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
                throw new AssertionError("emulator - bot messages to chat " + chatId + " never matched within " + max.toMillis()
                        + " ms; saw: " + seen.stream().map(BotMessage::text).toList());
            }
            Thread.sleep(50);
            seen = botMessages(token, chatId);
        }
        return seen;
    }

    private JsonNode post(String path, Object body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(apiBase() + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
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

    private static String readUntilListening(BufferedReader out) {
        StringBuilder seen = new StringBuilder();
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.contains("listening")) {
                    return line;
                }
                seen.append(line).append('\n');
            }
        } catch (IOException e) {
            seen.append(e);
        }
        return seen.toString();
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // the emulator's own output is not needed
            }
        } catch (IOException ignored) {
            // process ended
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
