package dev.herald.core.gateway;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.Destination;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import dev.herald.core.retry.Backoff;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
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
 * The one way out of Herald (egress): turns' replies, command answers, notices, and the replies a platform
 * only relays (a webhook route delivering to a chat on another platform), which go straight to their destination. A turn's final reply is recorded on the turn before it is sent
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
    /** 250 ms, 500 ms, 1 s between the attempts of one send; a retry-after over 30 s keeps the reply for redelivery. */
    static final Backoff RETRIES = Backoff.exponential(Duration.ofMillis(250), Duration.ofSeconds(2)).withMaxRetryAfter(Duration.ofSeconds(30));

    private final Turns turns;
    private final PlatformRegistry platforms;
    private final GatewayMetrics metrics;
    /** Turns being delivered right now (by their turn, a redelivery on connect or the background retry). */
    private final Set<Long> delivering = ConcurrentHashMap.newKeySet();

    public Outbox(Turns turns, PlatformRegistry platforms, GatewayMetrics metrics) {
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
        MessageKind kind = isFailure(turn.outcome()) ? MessageKind.ERROR : MessageKind.REPLY;
        Optional<Route> route = route(turn.source().platform(), turn.source().target(), kind);
        if (route.isEmpty()) {
            Platform to = destinationOf(turn);
            log.warn("outbox - turn {} has a reply for platform {}, which is not running; reply kept for redelivery", turn.id(), to);
            if (!to.equals(turn.source().platform())) {
                turns.recordDeliveryFailure(turn.id(), "platform " + to + " is not running");
            }
            return false;
        }
        PlatformAdapter adapter = route.get().adapter();
        dev.herald.core.CrashPoints.reach(dev.herald.core.CrashPoints.BEFORE_SEND);
        List<String> parts = TextSplitter.split(turn.reply(), adapter.capabilities().maxTextLength());
        PartsSent sent = sendParts(adapter, route.get().target(), parts, Math.max(0, Math.min(turn.partsDelivered(), parts.size() - 1)), kind,
                route.get().relayed() ? null : turn.platformMessageId(), turn.eventId(), count -> {
                    if (count < parts.size()) {
                        turns.markPartsDelivered(turn.id(), count);
                    }
                });
        SendResult r = sent.last();
        if (!r.success()) {
            boolean permanent = !r.retryable();
            String error = describe(r, sent.part(), parts.size());
            if (permanent) {
                turns.refused(turn.id(), error);
            } else {
                turns.recordDeliveryFailure(turn.id(), error);
            }
            metrics.replyNotDelivered(turn.source().platform(), permanent);
            if (permanent) {
                log.warn("outbox - turn {}: {} refused the reply for good ({}); it is marked undeliverable", turn.id(),
                        adapter.platform(), r.error());
            }
            return false;
        }
        if (route.get().relayed()) {
            log.info("outbox - turn {}: reply relayed from {} to {} chat {} ({} part(s))", turn.id(), turn.source().platform(),
                    adapter.platform(), route.get().target().chatId(), parts.size());
        }
        return turns.delivered(turn.id(), r.messageId() == null || r.messageId().isEmpty() ? null : r.messageId());
    }

    /** Where a message goes: the adapter of its platform, or (a reply) the chat that platform relays replies to. */
    private record Route(PlatformAdapter adapter, ChatTarget target, boolean relayed) {
    }

    /** Empty when the platform, or the platform it relays replies to, is not running. */
    private Optional<Route> route(Platform platform, ChatTarget target, MessageKind kind) {
        Optional<PlatformAdapter> adapter = platforms.adapter(platform);
        if (adapter.isEmpty()) {
            return Optional.empty();
        }
        if (kind != MessageKind.REPLY && kind != MessageKind.ERROR) {
            return Optional.of(new Route(adapter.get(), target, false));
        }
        Optional<Destination> relay = adapter.get().relaysRepliesTo(target);
        if (relay.isEmpty()) {
            return Optional.of(new Route(adapter.get(), target, false));
        }
        return platforms.adapter(relay.get().platform()).map(a -> new Route(a, relay.get().target(), true));
    }

    /** The platform a turn's reply goes to: its own, or the one its platform relays replies to. */
    Platform destinationOf(TurnRecord turn) {
        return platforms.adapter(turn.source().platform()).flatMap(a -> a.relaysRepliesTo(turn.source().target()))
                .map(Destination::platform).orElse(turn.source().platform());
    }

    private static String describe(SendResult r, int part, int parts) {
        String error = r.error() == null ? "send failed" : r.error();
        return parts == 1 ? error : "part " + (part + 1) + " of " + parts + ": " + error;
    }

    /** Delivers every reply that was recorded but not confirmed sent and goes to {@code platform} (relayed ones included). */
    public int redeliver(Platform platform) {
        return redeliver(t -> destinationOf(t).equals(platform));
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

    /** Sends an unrecorded message (a command answer, a notice, an apology), split and retried. */
    public boolean send(Platform platform, ChatTarget target, String text, MessageKind kind, String replyTo, String correlationId) {
        Optional<Route> route = route(platform, target, kind);
        if (route.isEmpty()) {
            log.warn("outbox - cannot send a {} to platform {}: not running", kind, platform);
            return false;
        }
        PlatformAdapter adapter = route.get().adapter();
        return sendParts(adapter, route.get().target(), TextSplitter.split(text, adapter.capabilities().maxTextLength()), 0, kind,
                route.get().relayed() ? null : replyTo, correlationId, count -> {
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
            Optional<Duration> wait = RETRIES.wait(attempt, last.retryAfter());
            if (wait.isEmpty()) {
                break;
            }
            try {
                Thread.sleep(wait.get());
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

    static boolean isFailure(String outcome) {
        return "error".equals(outcome) || "failed".equals(outcome);
    }
}
