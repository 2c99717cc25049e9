package dev.herald.core.gateway;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.TurnStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way out of Herald (egress). A turn's final reply is recorded on the turn before it is sent
 * and marked sent after, so a crash in between leads to delivery from the record at the next start,
 * never to a second generated reply (invariant 7). Notices and command answers are not recorded.
 * Every send is split to the platform's limit and retried on transient failures, honouring the
 * platform's retry-after. A reply that still fails stays recorded with its error (shown by /status) and
 * is tried again later; a split reply records each part sent, so a later attempt never repeats one
 * (a crash between sending a part and recording it can repeat that one part).
 */
public final class Outbox {
    private static final Logger log = LoggerFactory.getLogger(Outbox.class);
    private static final int MAX_ATTEMPTS = 4;
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private final TurnStore turns;
    private final PlatformRegistry platforms;
    private final GatewayMetrics metrics;
    /** Turns being delivered right now (by their turn, a redelivery on connect or the background retry). */
    private final Set<Long> delivering = ConcurrentHashMap.newKeySet();

    public Outbox(TurnStore turns, PlatformRegistry platforms, GatewayMetrics metrics) {
        this.turns = turns;
        this.platforms = platforms;
        this.metrics = metrics;
    }

    /** Records the final reply of a running turn; false when the turn was no longer running. */
    public boolean record(TurnRecord turn, String outcome, String reply) {
        return turns.recordReply(turn.id(), outcome, reply);
    }

    /**
     * Sends the reply recorded on {@code turn} (state AWAITING_DELIVERY) and marks it delivered.
     * One delivery of a turn at a time: a caller that finds the turn already being delivered returns
     * false at once. The record is read again under that claim, so a reply delivered meanwhile is not
     * sent twice, and a split reply continues after the parts already sent. A reply that cannot be sent
     * stays recorded for a later attempt, unless the platform refused it for good (UNDELIVERABLE).
     */
    public boolean deliver(TurnRecord turn) {
        if (turn.state() != TurnState.AWAITING_DELIVERY || turn.reply() == null) {
            return false;
        }
        if (!delivering.add(turn.id())) {
            return false;
        }
        try {
            Optional<TurnRecord> current = turns.find(turn.id());
            if (current.isEmpty() || current.get().state() != TurnState.AWAITING_DELIVERY) {
                return false;
            }
            return deliverClaimed(current.get());
        } finally {
            delivering.remove(turn.id());
        }
    }

    private boolean deliverClaimed(TurnRecord turn) {
        Optional<PlatformAdapter> adapter = platforms.adapter(turn.source().platform());
        if (adapter.isEmpty()) {
            log.warn("outbox - turn {} has a reply for platform {}, which is not running; reply kept for redelivery",
                    turn.id(), turn.source().platform());
            return false;
        }
        MessageKind kind = isFailure(turn.outcome()) ? MessageKind.ERROR : MessageKind.REPLY;
        dev.herald.core.CrashPoints.reach(dev.herald.core.CrashPoints.BEFORE_SEND);
        List<String> parts = TextSplitter.split(turn.reply(), adapter.get().capabilities().maxTextLength());
        PartsSent sent = sendParts(adapter.get(), turn.source().target(), parts, Math.max(0, Math.min(turn.partsDelivered(), parts.size() - 1)), kind,
                replyTarget(turn), turn.eventId(), count -> {
                    if (count < parts.size()) {
                        turns.markPartsDelivered(turn.id(), count);
                    }
                });
        SendResult r = sent.last();
        if (!r.success()) {
            boolean permanent = !r.retryable();
            turns.recordDeliveryFailure(turn.id(), describe(r, sent.part(), parts.size()), permanent);
            metrics.replyNotDelivered(turn.source().platform(), permanent);
            if (permanent) {
                log.warn("outbox - turn {}: {} refused the reply for good ({}); it is marked undeliverable", turn.id(),
                        turn.source().platform(), r.error());
            }
            return false;
        }
        return turns.markDelivered(turn.id(), r.messageId() == null || r.messageId().isEmpty() ? null : r.messageId());
    }

    private static String describe(SendResult r, int part, int parts) {
        String error = r.error() == null ? "send failed" : r.error();
        return parts == 1 ? error : "part " + (part + 1) + " of " + parts + ": " + error;
    }

    /** Delivers every reply of {@code platform} that was recorded but not confirmed sent. */
    public int redeliver(Platform platform) {
        return redeliver(t -> t.source().platform().equals(platform));
    }

    /**
     * Delivers the replies waiting for delivery that {@code which} selects (the background retry selects
     * connected platforms' replies that are due by its back-off); returns how many were delivered.
     */
    public int redeliver(Predicate<TurnRecord> which) {
        int delivered = 0;
        for (TurnRecord t : turns.inState(TurnState.AWAITING_DELIVERY, 10_000)) {
            if (which.test(t) && deliver(t)) {
                delivered++;
            }
        }
        if (delivered > 0) {
            log.info("outbox - delivered {} reply(ies) that had not gone out before", delivered);
        }
        return delivered;
    }

    /** Sends an unrecorded message (a command answer, a notice), split and retried. */
    public boolean send(Platform platform, ChatTarget target, String text, MessageKind kind, String replyTo, String correlationId) {
        Optional<PlatformAdapter> adapter = platforms.adapter(platform);
        if (adapter.isEmpty()) {
            log.warn("outbox - cannot send a {} to platform {}: not running", kind, platform);
            return false;
        }
        return sendParts(adapter.get(), target, TextSplitter.split(text, adapter.get().capabilities().maxTextLength()), 0, kind,
                replyTo, correlationId, count -> {
                }).last().success();
    }

    /** How a split send ended: the result of the last part tried (the failure, or the last part's success) and its index. */
    private record PartsSent(SendResult last, int part) {
    }

    /**
     * Sends {@code parts} from index {@code from} on, each retried, stopping at the first that fails;
     * {@code partSent} hears how many parts have gone out after each one.
     */
    private PartsSent sendParts(PlatformAdapter adapter, ChatTarget target, List<String> parts, int from, MessageKind kind,
            String replyTo, String correlationId, IntConsumer partSent) {
        SendResult r = null;
        int i = from;
        for (; i < parts.size(); i++) {
            r = sendWithRetry(adapter, new OutboundMessage(target, parts.get(i), kind, i == 0 ? replyTo : null, correlationId, i + 1,
                    parts.size()));
            if (!r.success()) {
                return new PartsSent(r, i);
            }
            partSent.accept(i + 1);
        }
        return new PartsSent(r == null ? SendResult.sent(null) : r, i - 1); // nothing to send counts as sent
    }

    private SendResult sendWithRetry(PlatformAdapter adapter, OutboundMessage m) {
        long start = System.nanoTime();
        SendResult last = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try {
                last = adapter.send(m);
            } catch (RuntimeException e) {
                last = SendResult.failed(e.getClass().getSimpleName() + ": " + e.getMessage(), true);
            }
            if (last.success() || !last.retryable() || attempt == MAX_ATTEMPTS) {
                break;
            }
            Duration wait = last.retryAfter() != null ? last.retryAfter() : Duration.ofMillis(250L << (attempt - 1));
            if (wait.compareTo(MAX_WAIT) > 0) {
                break;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!last.success()) {
            long ms = (System.nanoTime() - start) / 1_000_000;
            log.warn("{} - send failed after {} ms (last: {}{}); {}", adapter.platform(), ms, last.error(),
                    last.retryAfter() == null ? "" : ", retry_after " + last.retryAfter().toSeconds() + " s",
                    m.kind() == MessageKind.REPLY || m.kind() == MessageKind.ERROR ? "reply kept for redelivery" : "message dropped");
        }
        return last;
    }

    /** The platform message a reply answers: a person's message; a turn Herald made itself (a scheduled job) answers none. */
    private static String replyTarget(TurnRecord turn) {
        return turn.origin() == dev.herald.core.platform.MessageEvent.Origin.USER ? turn.platformMessageId() : null;
    }

    static boolean isFailure(String outcome) {
        return "error".equals(outcome) || "failed".equals(outcome);
    }
}
