package dev.herald.platforms.common;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.OutboundMessage;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Streamed replies by editing one message: while a turn writes, one message per turn (its draft) shows the text so
 * far, posted at the first delta and edited at most once per {@code interval} (platforms rate-limit edits); the
 * final reply's first part then goes into the draft ({@link #claim}), so the chat ends with one message for the
 * answer. The platform's calls are its {@link Surface}; they run on the turn's thread, one draft at a time.
 *
 * <p>Best-effort throughout: a failed post or edit only delays the view (a rate-limited one waits the platform's
 * {@code retry_after}); when the final edit fails the adapter sends the reply as a new message. Drafts live in memory:
 * after a crash the resent reply is a new message and the draft stays as it was. Drafts of turns that never sent a
 * final reply (interrupted, failed) are forgotten after an hour.
 */
public final class EditedDrafts {
    /** Shown at the end of a draft: the answer is still being written. */
    public static final String CURSOR = " \u2589";
    private static final Duration FORGET_AFTER = Duration.ofHours(1);

    /** What the platform does with a draft: post it, edit it. Both get the text so far (already cut to the view limit). */
    public interface Surface {
        /** Posts the first view of a draft in {@code target}. */
        Result post(ChatTarget target, String textSoFar);

        /** Replaces the draft {@code messageId}'s text. */
        Result edit(ChatTarget target, String messageId, String textSoFar);
    }

    /**
     * One post or edit: the message's id when it worked (a post's new id), or the platform's wait when it was rate
     * limited, or neither (failed).
     */
    public record Result(String messageId, Duration retryAfter) {
        public static Result ok(String messageId) {
            return new Result(messageId, null);
        }

        public static Result limited(Duration wait) {
            return new Result(null, wait);
        }

        public static final Result FAILED = new Result(null, null);
    }

    private static final class Draft {
        final ChatTarget target;
        final StringBuilder text = new StringBuilder();
        final long startedNanos = System.nanoTime();
        String messageId;
        long nextFlushNanos;

        Draft(ChatTarget target) {
            this.target = target;
        }
    }

    private final Surface surface;
    private final Duration interval;
    private final int viewLimit;
    private final Map<String, Draft> drafts = new ConcurrentHashMap<>();

    /** Drafts posted through {@code surface}, edited at most once per {@code interval}, showing at most {@code viewLimit} characters. */
    public EditedDrafts(Surface surface, Duration interval, int viewLimit) {
        this.surface = surface;
        this.interval = interval;
        this.viewLimit = viewLimit;
    }

    /** More text of the turn answering {@code correlationId}. */
    public void delta(ChatTarget target, String correlationId, String text) {
        if (correlationId == null || text == null || text.isEmpty()) {
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
            d.nextFlushNanos = now + interval.toNanos();
            String view = d.text.length() > viewLimit ? d.text.substring(0, viewLimit) + "\u2026" : d.text.toString();
            Result r = d.messageId == null ? surface.post(target, view) : surface.edit(target, d.messageId, view);
            if (r.messageId() != null && d.messageId == null) {
                d.messageId = r.messageId();
            } else if (r.retryAfter() != null) {
                d.nextFlushNanos = now + Math.max(interval.toNanos(), r.retryAfter().toNanos());
            }
        }
    }

    /**
     * The draft message that the first part of the final reply {@code m} should replace, removed from the drafts; empty
     * when {@code m} is not such a part (a later part, a file, a message nobody asked for) or its turn posted no draft.
     */
    public Optional<String> claim(OutboundMessage m) {
        if (m.correlationId() == null || m.part() != 1 || m.file() != null) {
            return Optional.empty();
        }
        Draft d = drafts.remove(m.correlationId());
        if (d == null) {
            return Optional.empty();
        }
        synchronized (d) {
            return d.messageId != null && d.target.equals(m.target()) ? Optional.of(d.messageId) : Optional.empty();
        }
    }

    private void forgetAbandoned() {
        long cutoff = System.nanoTime() - FORGET_AFTER.toNanos();
        drafts.values().removeIf(d -> d.startedNanos < cutoff);
    }
}
