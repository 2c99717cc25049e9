package dev.herald.platforms.telegram;

import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import java.io.IOException;

/**
 * Files to a Telegram chat: an image as {@code sendPhoto}, an OGG file as {@code sendVoice}, anything else as
 * {@code sendDocument}, each a multipart upload with the part's text as the caption. Telegram has no idempotency key: a
 * file whose answer was lost in a crash may arrive twice (as a text part may).
 */
final class TelegramFiles {
    /** What the Bot API takes from a bot (50 MB); a photo is limited to 10 MB and goes as a document above that. */
    static final long MAX_UPLOAD_BYTES = 50L * 1000 * 1000;
    static final long MAX_PHOTO_BYTES = 10L * 1000 * 1000;
    /** Telegram's caption limit; a longer caption is cut. */
    static final int MAX_CAPTION = 1024;

    private TelegramFiles() {
    }

    static SendResult send(BotApi api, OutboundMessage m) {
        OutboundFile f = m.file();
        String method;
        String field;
        if (f.isImage() && f.size() <= MAX_PHOTO_BYTES && !f.mimeType().equals("image/gif")) {
            method = "sendPhoto";
            field = "photo";
        } else if (f.isVoice()) {
            method = "sendVoice";
            field = "voice";
        } else {
            method = "sendDocument";
            field = "document";
        }
        String caption = m.text().length() > MAX_CAPTION ? m.text().substring(0, MAX_CAPTION) : m.text();
        try {
            byte[] bytes = f.read(MAX_UPLOAD_BYTES);
            BotApi.Answer a = api.sendFile(method, field, m.target().chatId(), number(m.target().threadId()), f.name(), f.mimeType(),
                    bytes, caption, number(m.replyToMessageId()));
            if (a.ok()) {
                return SendResult.sent(a.result().path("message_id").asText(null));
            }
            if (a.status() == 429) {
                return SendResult.rateLimited(a.problem(), a.retryAfter());
            }
            return SendResult.failed(a.problem(), a.retryable());
        } catch (IOException e) {
            return SendResult.failed(method + ": " + api.describe(e), true);
        }
    }

    private static Long number(String id) {
        if (id == null) {
            return null;
        }
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
