package dev.herald.platforms.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Telegram Bot API methods Herald uses, over {@link JsonHttp}: every call is
 * {@code POST <api_base>/bot<token>/<method>} with a JSON body, answered by
 * {@code {"ok": true, "result": ...}} or {@code {"ok": false, "error_code": N, "description": "...",
 * "parameters": {"retry_after": S}}}. The token is part of every URL, so no URL leaves this class: errors
 * carry the method name, the HTTP status and Telegram's description only.
 */
final class BotApi {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration UPLOAD_TIMEOUT = Duration.ofSeconds(120);

    /** One answer. {@code result} is null unless {@code ok}; {@code retryAfter} only for 429. */
    record Answer(String method, int status, boolean ok, JsonNode result, String description, Duration retryAfter) {
        /** A later attempt may succeed: rate limits and server errors. */
        boolean retryable() {
            return status == 429 || status >= 500;
        }

        /** Telegram refused the formatting of the text (HTTP 400 "can't parse entities"); the same text plain would pass. */
        boolean entitiesRefused() {
            return status == 400 && description != null && description.toLowerCase(java.util.Locale.ROOT).contains("parse entities");
        }

        /** Telegram answers 401 for an unknown token and 404 for one it cannot even parse. */
        boolean unauthorized() {
            return status == 401 || status == 404;
        }

        /** e.g. {@code sendMessage HTTP 400: Bad Request: chat not found}. */
        String problem() {
            String d = description == null || description.length() <= 160 ? description : description.substring(0, 160) + "...";
            return method + " HTTP " + status + (d == null || d.isBlank() ? "" : ": " + d);
        }
    }

    private final String base;
    private final String fileBase;
    private final JsonHttp http;

    BotApi(String apiBase, String token) {
        String trimmed = apiBase.endsWith("/") ? apiBase.substring(0, apiBase.length() - 1) : apiBase;
        this.base = trimmed + "/bot" + token + "/";
        this.fileBase = trimmed + "/file/bot" + token + "/";
        this.http = new JsonHttp(Duration.ofSeconds(10), List.of(token));
    }

    Answer getMe() throws IOException {
        return call("getMe", Map.of(), CALL_TIMEOUT);
    }

    /** Long-polls for updates after {@code offset}; the server holds the call up to {@code wait}. */
    Answer getUpdates(long offset, Duration wait) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        if (offset > 0) {
            body.put("offset", offset);
        }
        body.put("timeout", wait.toSeconds());
        body.put("allowed_updates", List.of("message", "channel_post", "callback_query"));
        return call("getUpdates", body, wait.plus(Duration.ofSeconds(15)));
    }

    /** Sends {@code text}; {@code parseMode} {@code HTML} reads it as Telegram HTML, null as plain text. */
    Answer sendMessage(String chatId, Long threadId, String text, String parseMode, Long replyTo) throws IOException {
        return sendMessage(chatId, threadId, text, parseMode, replyTo, null);
    }

    /** Like {@link #sendMessage(String, Long, String, String, Long)}, with {@code replyMarkup} (an inline keyboard) when not null. */
    Answer sendMessage(String chatId, Long threadId, String text, String parseMode, Long replyTo, Object replyMarkup) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("chat_id", chatKey(chatId));
        if (threadId != null) {
            body.put("message_thread_id", threadId);
        }
        body.put("text", text);
        if (parseMode != null) {
            body.put("parse_mode", parseMode);
        }
        if (replyTo != null) {
            body.put("reply_parameters", Map.of("message_id", replyTo, "allow_sending_without_reply", true));
        }
        if (replyMarkup != null) {
            body.put("reply_markup", replyMarkup);
        }
        return call("sendMessage", body, CALL_TIMEOUT);
    }

    Answer editMessageText(String chatId, long messageId, String text, String parseMode) throws IOException {
        return editMessageText(chatId, messageId, text, parseMode, null);
    }

    /** Edits a message's text; {@code replyMarkup} replaces its inline keyboard when not null (an empty one removes it). */
    Answer editMessageText(String chatId, long messageId, String text, String parseMode, Object replyMarkup) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("chat_id", chatKey(chatId));
        body.put("message_id", messageId);
        body.put("text", text);
        if (parseMode != null) {
            body.put("parse_mode", parseMode);
        }
        if (replyMarkup != null) {
            body.put("reply_markup", replyMarkup);
        }
        return call("editMessageText", body, CALL_TIMEOUT);
    }

    /** Replaces a message's inline keyboard ({@code replyMarkup}; an empty keyboard removes the buttons). */
    Answer editMessageReplyMarkup(String chatId, long messageId, Object replyMarkup) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("chat_id", chatKey(chatId));
        body.put("message_id", messageId);
        body.put("reply_markup", replyMarkup);
        return call("editMessageReplyMarkup", body, CALL_TIMEOUT);
    }

    /** Ends the spinner on a pressed button, showing {@code text} (up to 200 characters) to the presser. */
    Answer answerCallbackQuery(String callbackQueryId, String text) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("callback_query_id", callbackQueryId);
        if (text != null) {
            body.put("text", text.length() > 200 ? text.substring(0, 200) : text);
        }
        return call("answerCallbackQuery", body, Duration.ofSeconds(10));
    }

    Answer sendChatAction(String chatId, Long threadId, String action) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("chat_id", chatKey(chatId));
        if (threadId != null) {
            body.put("message_thread_id", threadId);
        }
        body.put("action", action);
        return call("sendChatAction", body, Duration.ofSeconds(10));
    }

    /**
     * Uploads a file: {@code sendPhoto}, {@code sendVoice} or {@code sendDocument} (multipart), with {@code caption}
     * (plain text, may be empty).
     */
    Answer sendFile(String method, String field, String chatId, Long threadId, String fileName, String contentType, byte[] bytes,
            String caption, Long replyTo) throws IOException {
        dev.herald.platforms.common.Multipart form = new dev.herald.platforms.common.Multipart().field("chat_id", chatId);
        if (threadId != null) {
            form.field("message_thread_id", Long.toString(threadId));
        }
        if (caption != null && !caption.isEmpty()) {
            form.field("caption", caption);
        }
        if (replyTo != null) {
            form.field("reply_parameters", "{\"message_id\":" + replyTo + ",\"allow_sending_without_reply\":true}");
        }
        form.file(field, fileName, contentType, bytes);
        return answer(method, http.postMultipart(base + method, form, Map.of(), UPLOAD_TIMEOUT));
    }

    /** Where a file is, for {@link #fileUrl}: {@code getFile}. */
    Answer getFile(String fileId) throws IOException {
        return call("getFile", Map.of("file_id", fileId), CALL_TIMEOUT);
    }

    /** The download address of a {@code getFile} path (it carries the token: never log or show it). */
    String fileUrl(String filePath) {
        return fileBase + filePath;
    }

    /** The failure's kind and message, with the token masked. */
    String describe(Throwable e) {
        return http.describe(e);
    }

    private Answer call(String method, Map<String, Object> body, Duration timeout) throws IOException {
        return answer(method, http.post(base + method, body, Map.of(), timeout));
    }

    private Answer answer(String method, JsonHttp.Reply r) {
        JsonNode json = r.body();
        boolean ok = r.ok() && json.path("ok").asBoolean(false);
        String description = json.path("description").isTextual() ? json.path("description").asText()
                : json.path("message").isTextual() ? json.path("message").asText() : null;
        Duration retryAfter = null;
        JsonNode ra = json.path("parameters").path("retry_after");
        if (ra.canConvertToLong()) {
            retryAfter = Duration.ofSeconds(Math.max(1, ra.asLong()));
        } else if (r.status() == 429) {
            retryAfter = r.header("Retry-After").map(BotApi::seconds).orElse(null);
        }
        return new Answer(method, r.status(), ok, ok ? json.path("result") : null, description == null ? null : http.redact(description),
                retryAfter);
    }

    /** Chat ids are numbers on the wire ({@code @channelname} stays text). */
    private static Object chatKey(String chatId) {
        try {
            return Long.parseLong(chatId);
        } catch (NumberFormatException e) {
            return chatId;
        }
    }

    private static Duration seconds(String header) {
        try {
            return Duration.ofSeconds(Math.max(1, Long.parseLong(header.strip())));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
