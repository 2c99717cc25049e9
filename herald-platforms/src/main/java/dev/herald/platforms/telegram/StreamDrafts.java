package dev.herald.platforms.telegram;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.SendResult;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Streamed replies: while a turn writes, one message per turn shows the text so far (as written, Markdown and
 * all: a half-written answer is not valid Markdown yet), edited at most once per {@code editInterval} (Telegram rate-limits edits); the final reply replaces the draft's text, so
 * the chat ends with exactly one message for the answer. Everything here is best-effort: a failed draft
 * edit only delays the view, and when the final edit fails the caller sends the reply as a new message.
 */
final class StreamDrafts {
    private static final String CURSOR = " \u2589";
    private static final int VIEW_LIMIT = 4000;
    private static final Duration FORGET_AFTER = Duration.ofHours(1);

    private static final class Draft {
        final ChatTarget target;
        final StringBuilder text = new StringBuilder();
        final long startedNanos = System.nanoTime();
        Long messageId;
        long nextFlushNanos;

        Draft(ChatTarget target) {
            this.target = target;
        }
    }

    private final BotApi api;
    private final Duration editInterval;
    private final Map<String, Draft> drafts = new ConcurrentHashMap<>();

    StreamDrafts(BotApi api, Duration editInterval) {
        this.api = api;
        this.editInterval = editInterval;
    }

    /** More text for the turn answering {@code correlationId}. */
    void delta(ChatTarget target, String correlationId, String text) {
        if (correlationId == null) {
            return;
        }
        forgetAbandoned();
        Draft d = drafts.computeIfAbsent(correlationId, k -> new Draft(target));
        synchronized (d) {
            d.text.append(text);
            long now = System.nanoTime();
            if (now < d.nextFlushNanos) {
                return;
            }
            d.nextFlushNanos = now + editInterval.toNanos();
            String view = view(d.text);
            try {
                BotApi.Answer a = d.messageId == null
                        ? api.sendMessage(target.chatId(), TelegramAdapter.number(target.threadId()), view, null, null)
                        : api.editMessageText(target.chatId(), d.messageId, view, null);
                if (a.ok() && d.messageId == null && a.result() != null && a.result().has("message_id")) {
                    d.messageId = a.result().get("message_id").asLong();
                } else if (a.retryAfter() != null) {
                    d.nextFlushNanos = now + a.retryAfter().toNanos();
                }
            } catch (IOException e) {
                // best-effort: the final reply still arrives through send()
            }
        }
    }

    /**
     * Puts the first part of a final reply into the turn's draft message, if there is one: as Telegram HTML,
     * or as plain text when Telegram refuses the HTML. Empty when there is no draft or the edit failed (the
     * caller then sends a new message).
     */
    Optional<SendResult> finish(OutboundMessage m) {
        if (m.correlationId() == null || m.part() != 1) {
            return Optional.empty();
        }
        Draft d = drafts.remove(m.correlationId());
        if (d == null) {
            return Optional.empty();
        }
        synchronized (d) {
            if (d.messageId == null || !d.target.equals(m.target())) {
                return Optional.empty();
            }
            try {
                BotApi.Answer a = api.editMessageText(m.target().chatId(), d.messageId, TelegramHtml.render(m.text()), "HTML");
                if (a.entitiesRefused()) {
                    a = api.editMessageText(m.target().chatId(), d.messageId, TelegramHtml.plain(m.text()), null);
                }
                boolean unchanged = a.status() == 400 && a.description() != null && a.description().contains("not modified");
                return a.ok() || unchanged ? Optional.of(SendResult.sent(Long.toString(d.messageId))) : Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            }
        }
    }

    private static String view(CharSequence text) {
        String t = text.toString();
        if (t.length() > VIEW_LIMIT) {
            t = t.substring(0, VIEW_LIMIT) + "\u2026";
        }
        return t + CURSOR;
    }

    /** Drafts of turns that never sent a final reply (interrupted, failed) are dropped after an hour. */
    private void forgetAbandoned() {
        long cutoff = System.nanoTime() - FORGET_AFTER.toNanos();
        drafts.values().removeIf(d -> d.startedNanos < cutoff);
    }
}
