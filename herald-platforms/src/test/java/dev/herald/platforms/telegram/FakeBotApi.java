package dev.herald.platforms.telegram;

import static dev.herald.platforms.LocalJsonServer.JSON;
import static dev.herald.platforms.LocalJsonServer.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.herald.platforms.LocalJsonServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small Bot API server for what the emulator cannot do: real offset semantics (updates stay until a
 * later getUpdates offset confirms them, so a new process reads unconfirmed ones again), scripted failures
 * (429 with retry_after, 5xx, 401 for a wrong token) and a record of every call with its arrival time.
 */
final class FakeBotApi implements AutoCloseable {
    /** One call the bot made, and what the fake answered. */
    record Call(String method, JsonNode body, long atNanos, JsonNode answer) {
    }

    private final LocalJsonServer server;
    private final String token;
    private final List<ObjectNode> updates = new CopyOnWriteArrayList<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<Upload> uploads = new CopyOnWriteArrayList<>();

    /** A file the bot sent (sendPhoto, sendDocument, sendVoice), as the chat shows it. */
    record Upload(String method, String chatId, String fileName, String contentType, byte[] bytes, String caption) {
    }
    private final Map<String, ConcurrentLinkedQueue<Integer>> failures = new ConcurrentHashMap<>();
    private final AtomicInteger nextUpdateId = new AtomicInteger(10);
    private final AtomicInteger nextMessageId = new AtomicInteger(500);
    private final AtomicInteger nextCallbackId = new AtomicInteger(1);
    private volatile boolean pollsFail;
    /** Delay before a sent message is answered (it is recorded, and would be in the chat, at once). */
    volatile java.time.Duration sendDelay = java.time.Duration.ZERO;

    FakeBotApi(String token) {
        this.token = token;
        this.server = new LocalJsonServer(this::handle);
    }

    String apiBase() {
        return server.baseUrl();
    }

    /** Queues an update carrying a private message from {@code userId}; returns it (to redeliver later). */
    ObjectNode userSays(long userId, String text) {
        return userSays(userId, text, message -> { });
    }

    /**
     * Like {@link #userSays(long, String)}, but {@code shape} edits the message before the update is queued (editing
     * the returned update afterwards races the adapter's poll).
     */
    ObjectNode userSays(long userId, String text, java.util.function.Consumer<ObjectNode> shape) {
        ObjectNode u = JSON.createObjectNode();
        u.put("update_id", nextUpdateId.getAndIncrement());
        ObjectNode m = u.putObject("message");
        m.put("message_id", nextMessageId.getAndIncrement());
        m.putObject("from").put("id", userId).put("is_bot", false).put("first_name", "U" + userId);
        m.putObject("chat").put("id", userId).put("type", "private");
        m.put("date", System.currentTimeMillis() / 1000);
        m.put("text", text);
        shape.accept(m);
        updates.add(u);
        return u;
    }

    /**
     * Queues a press of the inline button carrying {@code data} under the bot's message {@code prompt} (a sendMessage
     * call), by {@code userId}, as Telegram sends it: a {@code callback_query} with its own id and the message it is under.
     */
    ObjectNode pressButton(long userId, Call prompt, String data) {
        ObjectNode u = JSON.createObjectNode();
        u.put("update_id", nextUpdateId.getAndIncrement());
        ObjectNode q = u.putObject("callback_query");
        q.put("id", "7000" + nextCallbackId.getAndIncrement());
        q.putObject("from").put("id", userId).put("is_bot", false).put("first_name", "U" + userId);
        ObjectNode m = q.putObject("message");
        m.put("message_id", prompt.answer().path("result").path("message_id").asLong());
        m.putObject("from").put("id", 42).put("is_bot", true).put("username", "herald_test_bot");
        long chat = prompt.body().path("chat_id").asLong();
        m.putObject("chat").put("id", chat).put("type", chat < 0 ? "supergroup" : "private");
        m.put("date", System.currentTimeMillis() / 1000);
        m.put("text", prompt.body().path("text").asText().replaceAll("<[^>]+>", ""));
        m.set("reply_markup", prompt.body().path("reply_markup"));
        q.put("chat_instance", "ci" + chat);
        q.put("data", data);
        updates.add(u);
        return u;
    }

    /** Queues an update again under its own update id, as Telegram does for an unconfirmed one. */
    void redeliver(ObjectNode update) {
        updates.add(update);
    }

    /** Queues the same message under a new update id. */
    void resendAsNewUpdate(ObjectNode update) {
        ObjectNode copy = update.deepCopy();
        copy.put("update_id", nextUpdateId.getAndIncrement());
        updates.add(copy);
    }

    /** The next call of {@code method} answers {@code status} (429 with retry_after 1 s; others plain). */
    void failNext(String method, int status) {
        failures.computeIfAbsent(method, k -> new ConcurrentLinkedQueue<>()).add(status);
    }

    /** Every getUpdates answers 502 until switched off. */
    void failPolls(boolean fail) {
        pollsFail = fail;
    }

    private final Map<String, byte[]> hosted = new ConcurrentHashMap<>();

    /**
     * Keeps {@code bytes} as the file {@code fileId} a user sent: {@code getFile} answers its size and a
     * {@code file_path}, and {@code GET /file/bot<token>/<file_path>} its bytes, as the Bot API does.
     */
    void hostFile(String fileId, byte[] bytes) {
        hosted.put(fileId, bytes);
    }

    /** Forgets the file {@code fileId}, as Telegram does with one it no longer keeps: getFile and the download answer 400/404. */
    void dropFile(String fileId) {
        hosted.remove(fileId);
    }

    /** Every file the bot sent, in order. */
    List<Upload> uploads() {
        return List.copyOf(uploads);
    }

    List<Call> calls(String method) {
        List<Call> out = new ArrayList<>();
        for (Call c : calls) {
            if (c.method().equals(method)) {
                out.add(c);
            }
        }
        return out;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            if (path.startsWith("/file/")) {
                download(ex, path);
                return;
            }
            int slash = path.indexOf('/', 1);
            String botPart = slash < 0 ? path : path.substring(1, slash);
            String method = slash < 0 ? "" : path.substring(slash + 1);
            byte[] raw = ex.getRequestBody().readAllBytes();
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            dev.herald.platforms.MultipartForm form = type != null && type.startsWith("multipart/")
                    ? dev.herald.platforms.MultipartForm.parse(type, raw) : null;
            JsonNode body = form != null ? JSON.valueToTree(form.fields()) : raw.length == 0 ? JSON.createObjectNode() : JSON.readTree(raw);
            if (!botPart.equals("bot" + token)) {
                reply(ex, 401, error(401, "Unauthorized"));
                return;
            }
            long at = System.nanoTime();
            Integer fail = failures.getOrDefault(method, new ConcurrentLinkedQueue<>()).poll();
            if (fail == null && method.equals("getUpdates") && pollsFail) {
                fail = 502;
            }
            if (fail != null) {
                ObjectNode e = error(fail, fail == 429 ? "Too Many Requests: retry after 1"
                        : fail == 400 ? "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0" : "Bad Gateway");
                if (fail == 429) {
                    e.putObject("parameters").put("retry_after", 1);
                }
                calls.add(new Call(method, body, at, e));
                reply(ex, fail, e);
                return;
            }
            if (form != null) {
                for (var f : form.files()) {
                    uploads.add(new Upload(method, form.fields().get("chat_id"), f.fileName(), f.contentType(), f.bytes(),
                            form.fields().get("caption")));
                }
            }
            ObjectNode answer = answer(method, body);
            calls.add(new Call(method, body, at, answer));
            if (method.equals("sendMessage") && !sendDelay.isZero()) {
                try {
                    Thread.sleep(sendDelay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            reply(ex, 200, answer);
        }
    }

    private ObjectNode answer(String method, JsonNode body) throws IOException {
        ObjectNode ok = JSON.createObjectNode().put("ok", true);
        switch (method) {
            case "getMe" -> ok.putObject("result").put("id", 42).put("is_bot", true).put("username", "herald_test_bot");
            case "getFile" -> {
                String id = body.path("file_id").asText();
                byte[] bytes = hosted.get(id);
                if (bytes == null) {
                    return error(400, "Bad Request: invalid file_id");
                }
                ok.putObject("result").put("file_id", id).put("file_unique_id", "u" + id.hashCode()).put("file_size", bytes.length)
                        .put("file_path", "voice/file_" + Integer.toHexString(id.hashCode()) + ".oga");
            }
            case "getUpdates" -> ok.set("result", pending(body.path("offset").asLong(0), body.path("allowed_updates")));
            case "sendPhoto", "sendDocument", "sendVoice" -> ok.putObject("result").put("message_id", nextMessageId.getAndIncrement());
            case "sendMessage" -> ok.putObject("result").put("message_id", nextMessageId.getAndIncrement())
                    .put("text", body.path("text").asText());
            default -> ok.put("result", true);
        }
        return ok;
    }

    /** {@code GET /file/bot<token>/<file_path>}: the bytes of a hosted file, 404 for another path, 401 for another token. */
    private void download(HttpExchange ex, String path) throws IOException {
        String prefix = "/file/bot" + token + "/";
        if (!path.startsWith(prefix)) {
            reply(ex, 401, error(401, "Unauthorized"));
            return;
        }
        String filePath = path.substring(prefix.length());
        for (var e : hosted.entrySet()) {
            if (filePath.equals("voice/file_" + Integer.toHexString(e.getKey().hashCode()) + ".oga")) {
                ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
                ex.sendResponseHeaders(200, e.getValue().length);
                ex.getResponseBody().write(e.getValue());
                return;
            }
        }
        reply(ex, 404, error(404, "Not Found"));
    }

    /**
     * Drops updates the offset confirms, and those of kinds the call does not allow ({@code allowed_updates}: Telegram
     * never sends those to the bot); returns the rest (after a short wait when there are none).
     */
    private ArrayNode pending(long offset, JsonNode allowed) {
        updates.removeIf(u -> u.path("update_id").asLong() < offset || !allowedKind(u, allowed));
        if (updates.isEmpty()) {
            LocalJsonServer.holdEmptyPoll();
        }
        ArrayNode out = JSON.createArrayNode();
        updates.stream().filter(u -> u.path("update_id").asLong() >= offset && allowedKind(u, allowed)).forEach(out::add);
        return out;
    }

    private static boolean allowedKind(JsonNode update, JsonNode allowed) {
        if (!allowed.isArray() || allowed.isEmpty()) {
            return true;
        }
        for (JsonNode kind : allowed) {
            if (update.has(kind.asText())) {
                return true;
            }
        }
        return false;
    }

    private static ObjectNode error(int code, String description) {
        return JSON.createObjectNode().put("ok", false).put("error_code", code).put("description", description);
    }

    @Override
    public void close() {
        server.close();
    }
}
