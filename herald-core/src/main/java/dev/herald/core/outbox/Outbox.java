package dev.herald.core.outbox;

import dev.herald.core.CrashPoints;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.Destination;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundFile;
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
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way out of Herald (egress): turns' replies, command answers, notices, and the replies a platform only
 * relays (a webhook route delivering to another platform's chat), which go straight to their destination.
 *
 * <p>Delivery semantics of a turn's reply. The reply is recorded on the turn before anything is sent, so a crash
 * leads to delivery from the record, never to a second generated reply (invariant 7). It is split to the platform's
 * limit and sent part by part; for each part, a send intent is recorded before the platform is called and the
 * platform's answer (its message id) right after it answers, with nothing in between. A crash between the call and
 * the record leaves that one part in doubt: the next attempt sends it again with the same idempotency key. Where the
 * platform honours the key (Discord's {@code nonce} with {@code enforce_nonce}), that resend is not a second message;
 * where it has none (Telegram, Slack, Weixin), the part may arrive twice, and only a part whose answer was never
 * recorded is ever sent again. Notices and command answers are not recorded. A reply that its turn sends at once
 * ({@link #record}) carries its first part's send intent in the record's own write: a crash between that write and the
 * call leaves the part "in doubt" although it was never sent, and its first attempt after the crash is the resend.
 *
 * <p>Files the agent sent ({@code send_file}) are recorded with the reply and are parts after its text, with the same
 * intent, answer and resend rules; a file the platform cannot take (no files, over {@link Capabilities#maxFileBytes()},
 * gone from the workspace) is sent as a line saying so, so the number of parts never changes between attempts.
 *
 * <p>When several nodes share the store, a reply is sent only by the node that owns its turn (or takes it over from a
 * node that is gone): the send intent is that claim, fenced in the store, and the node checks that it still holds its
 * lease right before each call to the platform. A node that was judged dead sends nothing more.
 *
 * <p>Every send is retried on transient failures ({@link #RETRIES}, honouring the platform's retry-after). A reply
 * that still fails stays recorded with its error (shown by /status) and is tried again later ({@link Redelivery});
 * one the platform refuses for good becomes UNDELIVERABLE.
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
    /** Turns whose first part's send intent this process recorded with the reply ({@link #record}), not yet sent. */
    private final Set<Long> firstPartRecorded = ConcurrentHashMap.newKeySet();
    private final java.util.function.BooleanSupplier holdsLease;

    public Outbox(Turns turns, PlatformRegistry platforms, GatewayMetrics metrics) {
        this(turns, platforms, metrics, () -> true);
    }

    /** An outbox of a node: {@code holdsLease} says whether the node still holds its lease (checked before every reply part). */
    public Outbox(Turns turns, PlatformRegistry platforms, GatewayMetrics metrics, java.util.function.BooleanSupplier holdsLease) {
        this.turns = turns;
        this.platforms = platforms;
        this.metrics = metrics;
        this.holdsLease = holdsLease;
    }

    /**
     * Records the final reply of a running turn, with the send intent of its first part, which the caller sends right
     * after ({@link #deliver}); false when the turn was no longer running.
     */
    public boolean record(TurnRecord turn, String outcome, String reply) {
        firstPartRecorded.add(turn.id());
        boolean recorded = false;
        try {
            recorded = turns.recordReplyAndSend(turn.id(), outcome, reply);
            return recorded;
        } finally {
            if (!recorded) {
                firstPartRecorded.remove(turn.id());
            }
        }
    }

    /**
     * Sends the reply recorded on {@code turn} (state AWAITING_DELIVERY) and marks it delivered. One delivery of a
     * turn at a time: a caller that finds the turn already being delivered returns false at once. The record is read
     * again under that claim, so a reply delivered meanwhile is not sent twice, and a split reply continues after the
     * parts already confirmed. A reply that cannot be sent stays recorded for a later attempt, unless the platform
     * refused it for good (UNDELIVERABLE).
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
        MessageKind kind = kindOf(turn.outcome());
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
        CrashPoints.reach(CrashPoints.BEFORE_SEND);
        List<Part> parts = parts(turn, adapter, route.get().relayed() ? platforms.headingOf(turn.source().platform(), turn.source().target()) : "");
        // recorded with the reply by this process and not sent yet: the part is not in doubt, and its intent is on record
        boolean firstIntentRecorded = turn.sendingPart() == 1 && turn.partsDelivered() == 0 && firstPartRecorded.remove(turn.id());
        if (turn.sendingPart() > turn.partsDelivered() && !firstIntentRecorded) {
            log.warn("outbox - turn {}: part {} of {} was handed to {} without its answer being recorded (a crash or a lost answer); "
                    + "sending it again with the same idempotency key", turn.id(), turn.sendingPart(), parts.size(), adapter.platform());
            metrics.replyPartResent(adapter.platform());
        }
        for (int i = Math.min(turn.partsDelivered(), parts.size() - 1); i < parts.size(); i++) {
            int part = i + 1;
            boolean intent = part == 1 && firstIntentRecorded || turns.recordSendIntent(turn.id(), part);
            if (!intent && !stillMine(turn.id()) || !holdsLease.getAsBoolean()) {
                log.info("outbox - turn {}: its reply is not this node's to send (another node owns the turn, or this node lost its "
                        + "lease); nothing sent", turn.id());
                return false;
            }
            OutboundMessage m = new OutboundMessage(route.get().target(), parts.get(i).text(), kind,
                    i == 0 && !route.get().relayed() ? turn.answersMessageId() : null, turn.eventId(), part, parts.size(),
                    idempotencyKey(turn.id(), part), parts.get(i).file());
            SendResult r = sendWithRetry(adapter, m);
            if (!r.success()) {
                failed(turn, adapter, r, i, parts.size());
                return false;
            }
            CrashPoints.reach(CrashPoints.AFTER_SEND);
            String messageId = r.messageId() == null || r.messageId().isEmpty() ? null : r.messageId();
            if (part == parts.size()) {
                if (route.get().relayed()) {
                    log.info("outbox - turn {}: reply relayed from {} to {} chat {} ({} part(s))", turn.id(), turn.source().platform(),
                            adapter.platform(), route.get().target().chatId(), parts.size());
                }
                return turns.delivered(turn.id(), messageId); // the last part's answer is the delivery
            }
            turns.recordPartSent(turn.id(), part, messageId);
        }
        return false; // not reached: the loop ends with the last part
    }

    /** One part of a reply: a piece of its text, or a file with its caption. */
    private record Part(String text, OutboundFile file) {
    }

    /**
     * The parts of a turn's reply: its text split to the platform's limit (none when the reply is only files), then one
     * part per file. A file the platform cannot take (no files, over its limit, gone from the workspace) is a line saying
     * so instead, so the count of parts never changes between attempts.
     */
    private static List<Part> parts(TurnRecord turn, PlatformAdapter adapter, String heading) {
        Capabilities caps = adapter.capabilities();
        List<Part> out = new java.util.ArrayList<>();
        if (!turn.reply().isBlank() || turn.replyFiles().isEmpty()) {
            TextSplitter.split(heading + turn.reply(), caps.maxTextLength(), caps.format()::lengthOf).forEach(t -> out.add(new Part(t, null)));
        }
        for (int k = 0; k < turn.replyFiles().size(); k++) {
            OutboundFile f = turn.replyFiles().get(k).withRef(turn.id(), k);
            String caption = f.caption() == null ? "" : f.caption();
            if (!caps.files()) {
                out.add(new Part("(The file " + f.name() + " was not sent: " + adapter.platform() + " does not take files from Herald.)", null));
            } else if (f.size() > caps.maxFileBytes()) {
                out.add(new Part("(The file " + f.name() + " was not sent: it is " + OutboundFile.size(f.size()) + ", and "
                        + adapter.platform() + " takes at most " + OutboundFile.size(caps.maxFileBytes()) + ".)", null));
            } else if (!f.present()) {
                out.add(new Part("(The file " + f.name() + " was not sent: it is no longer in the workspace.)", null));
            } else {
                out.add(new Part(caption, f));
            }
        }
        return out;
    }

    /** Whether the turn is still this node's to deliver (its send intent may be refused for a part confirmed already). */
    private boolean stillMine(long turnId) {
        return turns.find(turnId).map(t -> t.state() == TurnState.AWAITING_DELIVERY
                && (t.ownerNode() == null || turns.node() == null || t.ownerNode().equals(turns.node()))).orElse(false);
    }

    /** The key every attempt to send this part of this reply carries, after a crash too (at most 25 characters). */
    static String idempotencyKey(long turnId, int part) {
        return "h" + Long.toString(turnId, 36) + "p" + part;
    }

    private void failed(TurnRecord turn, PlatformAdapter adapter, SendResult r, int part, int parts) {
        boolean permanent = !r.retryable();
        String error = describe(r, part, parts);
        if (permanent) {
            turns.refused(turn.id(), error);
            log.warn("outbox - turn {}: {} refused the reply for good ({}); it is marked undeliverable", turn.id(), adapter.platform(),
                    r.error());
        } else {
            turns.recordDeliveryFailure(turn.id(), error);
        }
        metrics.replyNotDelivered(turn.source().platform(), permanent);
    }

    private static String describe(SendResult r, int part, int parts) {
        String error = r.error() == null ? "send failed" : r.error();
        return parts == 1 ? error : "part " + (part + 1) + " of " + parts + ": " + error;
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
        if (!kind.isAnswer() && !platforms.relaysAll(platform)) {
            return Optional.of(new Route(adapter.get(), target, false));
        }
        Optional<Destination> relay = platforms.relayOf(platform, target);
        if (relay.isEmpty()) {
            return Optional.of(new Route(adapter.get(), target, false));
        }
        return platforms.adapter(relay.get().platform()).map(a -> new Route(a, relay.get().target(), true));
    }

    /** The platform a turn's reply goes to: its own, or the one its platform relays replies to. */
    Platform destinationOf(TurnRecord turn) {
        return platforms.relayOf(turn.source().platform(), turn.source().target()).map(Destination::platform)
                .orElse(turn.source().platform());
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
        if (route.get().relayed()) {
            text = platforms.headingOf(platform, target) + text;
        }
        List<String> parts = TextSplitter.split(text, adapter.capabilities().maxTextLength(), adapter.capabilities().format()::lengthOf);
        for (int i = 0; i < parts.size(); i++) {
            SendResult r = sendWithRetry(adapter, new OutboundMessage(route.get().target(), parts.get(i), kind,
                    i == 0 && !route.get().relayed() ? replyTo : null, correlationId, i + 1, parts.size()));
            if (!r.success()) {
                return false;
            }
        }
        return true;
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
                    m.kind().isAnswer() ? "reply kept for redelivery" : "message dropped");
        }
        return last;
    }

    public static boolean isFailure(String outcome) {
        return "error".equals(outcome) || "failed".equals(outcome);
    }

    /** How a turn's recorded reply is sent, by the turn's outcome kind. */
    static MessageKind kindOf(String outcome) {
        if (isFailure(outcome)) {
            return MessageKind.ERROR;
        }
        return "partial".equals(outcome) ? MessageKind.CUT_OFF_REPLY : MessageKind.REPLY;
    }
}
