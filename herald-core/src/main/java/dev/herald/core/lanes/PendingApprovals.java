package dev.herald.core.lanes;

import dev.herald.core.Durations;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dangerous tool calls waiting for a person: at most one per session (a turn asks one question at a
 * time). The turn's thread blocks on the answer; /approve and /deny, answered inline, complete it; the
 * approval timeout and the turn's interrupt end the wait with a denial. Nothing here is persisted: a
 * question open when the gateway stops ends as INTERRUPTED, and the agent records that as the tool's
 * result, so the model sees after a restart that the call was denied and never ran.
 */
public final class PendingApprovals {
    private static final Logger log = LoggerFactory.getLogger(PendingApprovals.class);

    private record Pending(ApprovalRequest request, CompletableFuture<ApprovalDecision> answer) {
    }

    private final Map<SessionKey, Pending> pending = new ConcurrentHashMap<>();
    private final Outbox outbox;
    private final Duration timeout;

    public PendingApprovals(Outbox outbox, Duration timeout) {
        this.outbox = outbox;
        this.timeout = timeout;
    }

    /** Asks the chat and waits; called on the turn's thread. */
    ApprovalDecision ask(SessionKey key, SessionSource source, ApprovalRequest request, Interrupt interrupt) {
        Pending p = new Pending(request, new CompletableFuture<>());
        pending.put(key, p);
        Runnable onInterrupt = () -> p.answer().complete(ApprovalDecision.INTERRUPTED);
        interrupt.onRaise(onInterrupt);
        try {
            String question = "\u26a0\ufe0f Approval needed: " + request.toolName()
                    + (request.reason().isEmpty() ? "" : " (" + request.reason() + ")")
                    + (request.detail().isEmpty() ? "" : "\n" + request.detail())
                    + "\nReply /approve, /approve always, or /deny within " + Durations.age(timeout) + ".";
            if (!outbox.send(source.platform(), source.target(), question, MessageKind.PROMPT, null, null)) {
                log.warn("gateway - could not ask {} to approve {}; denied", key, request.toolName());
                return ApprovalDecision.DENIED;
            }
            ApprovalDecision d = p.answer().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            log.info("gateway - {} on {}: {}", request.toolName(), key, d);
            return d;
        } catch (TimeoutException e) {
            log.info("gateway - approval of {} on {} timed out after {}", request.toolName(), key, Durations.age(timeout));
            outbox.send(source.platform(), source.target(), "\u23f1 No answer in time; " + request.toolName() + " was not run.",
                    MessageKind.NOTICE, null, null);
            return ApprovalDecision.TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ApprovalDecision.INTERRUPTED;
        } catch (ExecutionException e) {
            return ApprovalDecision.DENIED;
        } finally {
            interrupt.forget(onInterrupt);
            pending.remove(key, p);
        }
    }

    /** Answers the session's open question; false when none is open. */
    public boolean answer(SessionKey key, ApprovalDecision decision) {
        Pending p = pending.get(key);
        return p != null && p.answer().complete(decision);
    }

    /** The open question of a session, for /status. */
    public ApprovalRequest open(SessionKey key) {
        Pending p = pending.get(key);
        return p == null ? null : p.request();
    }
}
