package dev.herald.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.tool.Args;
import dev.herald.agent.tool.Danger;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.TooLongToApprove;
import dev.herald.agent.tool.Tool;
import dev.herald.agent.tool.ToolResult;
import dev.herald.core.agent.ApprovalDecision;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.ToolState;
import dev.herald.core.transcript.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the tool calls of one assistant message and records one result per call, in call order.
 *
 * <p>Three passes. <b>Check</b>, in call order: arguments that are not a JSON object and unknown tools get an
 * error result at once. <b>Approve</b>, in call order: a dangerous call asks the listener (blocking) unless
 * the tool was approved "always" in this scope; a refusal becomes the result the model reads. When the
 * turn's signal is raised during an approval, that call gets the INTERRUPTED text and no further call starts.
 * <b>Run</b>: the approved calls start together, one virtual thread each (a single call runs on the turn's
 * thread), and their results are recorded in call order as each becomes available.
 *
 * <p>On interrupt the tools see the signal (the shell kills its process tree) and get {@value #GRACE_MS} ms to
 * return their own "interrupted" result; a call still running then is abandoned (its thread interrupted) with
 * an "interrupted" result. Every call of the message ends with exactly one recorded result.
 */
final class ToolBatch {
    private static final Logger log = LoggerFactory.getLogger(ToolBatch.class);
    static final long GRACE_MS = 2_000;

    /** How the batch ended: stopped by the interrupt, or every call refused before running (malformed, unknown). */
    record Outcome(boolean interrupted, boolean allRejected) {
    }

    /** One call on its way through the batch. */
    private static final class Slot {
        final ToolCall call;
        Tool tool;
        JsonNode args;
        ToolResult result;
        boolean rejected;
        boolean denied;
        String refusal;
        CompletableFuture<ToolResult> running;
        Thread thread;

        Slot(ToolCall call) {
            this.call = call;
        }

        boolean runnable() {
            return result == null;
        }
    }

    private final Turn turn;
    private final Approvals approvals;
    private final int resultLimit;
    private long graceDeadline;

    ToolBatch(Turn turn, Approvals approvals, int resultLimit) {
        this.turn = turn;
        this.approvals = approvals;
        this.resultLimit = resultLimit;
    }

    Outcome run(List<ToolCall> calls) {
        List<Slot> slots = new ArrayList<>(calls.size());
        for (ToolCall call : calls) {
            slots.add(check(new Slot(call)));
        }
        approve(slots);
        long runnable = slots.stream().filter(Slot::runnable).count();
        if (runnable > 1) {
            slots.stream().filter(Slot::runnable).forEach(this::start);
        }
        for (Slot slot : slots) {
            ToolResult result = slot.result != null ? slot.result : slot.running != null ? await(slot) : execute(slot);
            turn.record(ChatMessage.tool(slot.call.id(), slot.call.name(), Texts.clip(result.text(), resultLimit)));
            if (slot.denied) {
                turn.activity(slot.call.id(), slot.tool.name(), safeSummary(slot), ToolState.DENIED);
            }
        }
        boolean allRejected = slots.stream().allMatch(s -> s.rejected);
        return new Outcome(turn.signal().isRaised(), allRejected);
    }

    private Slot check(Slot slot) {
        ToolCall call = slot.call;
        slot.tool = turn.tools.find(call.name());
        if (slot.tool == null) {
            return reject(slot, "there is no tool named '" + Texts.line(call.name(), 80) + "'. Available tools: " + turn.tools.names()
                    + ". Nothing was run.");
        }
        String raw = call.argumentsJson().isBlank() ? "{}" : call.argumentsJson();
        try {
            JsonNode args = Args.JSON.readTree(raw);
            if (args == null || !args.isObject()) {
                return reject(slot, "the arguments for '" + call.name() + "' must be a JSON object (got " + Texts.line(raw, 120)
                        + "). Nothing was run.");
            }
            slot.args = args;
        } catch (JsonProcessingException e) {
            return reject(slot, "the arguments for '" + call.name() + "' are not valid JSON (" + Texts.line(e.getOriginalMessage(), 160)
                    + (e.getLocation() == null ? "" : " at character " + e.getLocation().getCharOffset() + " of " + raw.length())
                    + "). Send a JSON object matching the tool's parameters. Nothing was run.");
        }
        return slot;
    }

    private Slot reject(Slot slot, String why) {
        slot.result = ToolResult.error(why);
        slot.rejected = true;
        log.info("tool - call {} of '{}' refused before running: {}", slot.call.id(), Texts.line(slot.call.name(), 80), Texts.line(why, 160));
        return slot;
    }

    private void approve(List<Slot> slots) {
        boolean stopped = false;
        for (Slot slot : slots) {
            if (!slot.runnable()) {
                continue;
            }
            if (stopped || turn.signal().isRaised()) {
                slot.result = ToolResult.interrupted("the turn was stopped (" + turn.signal().reason() + ") before this call started. It was not run.");
                stopped = true;
                continue;
            }
            ApprovalDecision decision = decide(slot);
            if (!decision.approved()) {
                slot.result = ToolResult.denied(slot.refusal != null ? slot.refusal : decision.toolResultText());
                slot.denied = true;
                stopped = decision == ApprovalDecision.INTERRUPTED;
            }
        }
    }

    /** Whether the call may run: safe, approved always before, or the listener's answer. */
    private ApprovalDecision decide(Slot slot) {
        Danger danger;
        String summary;
        try {
            danger = slot.tool.danger(slot.args, turn.toolContext);
            summary = slot.tool.summarize(slot.args);
        } catch (RuntimeException e) {
            danger = Danger.because("its risk could not be judged (" + e.getMessage() + ")");
            summary = Texts.line(slot.call.argumentsJson(), 200);
        }
        String scope = turn.toolContext.scope();
        if (!danger.dangerous() || approvals.alwaysAllowed(scope, slot.tool.name())) {
            return ApprovalDecision.APPROVED_ONCE;
        }
        String detail;
        try {
            detail = approvalText(slot);
        } catch (TooLongToApprove e) {
            slot.refusal = e.getMessage();
            log.info("agent - '{}' (call {}) refused without asking: {}", slot.tool.name(), slot.call.id(), e.getMessage());
            return ApprovalDecision.DENIED;
        }
        long start = System.nanoTime();
        ApprovalDecision decision;
        try {
            decision = turn.listener().requestApproval(new ApprovalRequest(slot.call.id(), slot.tool.name(), summary, danger.reason(),
                    detail));
        } catch (RuntimeException e) {
            log.warn("agent - asking for approval of '{}' failed, treated as denied: {}", slot.tool.name(), e.toString());
            decision = ApprovalDecision.DENIED;
        }
        if (decision == null) {
            decision = ApprovalDecision.DENIED;
        }
        if (turn.signal().isRaised()) {
            decision = ApprovalDecision.INTERRUPTED;
        }
        if (decision == ApprovalDecision.APPROVED_ALWAYS) {
            approvals.remember(scope, slot.tool.name());
        }
        log.info("agent - approval for '{}' (call {}): {} after {} ms", slot.tool.name(), slot.call.id(), decision.name().toLowerCase(),
                Texts.number(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        return decision;
    }

    /** What the question shows: the tool's own text, else the raw arguments; either way whole, or TooLongToApprove. */
    private String approvalText(Slot slot) {
        try {
            return slot.tool.approvalText(slot.args, turn.toolContext);
        } catch (TooLongToApprove e) {
            throw e;
        } catch (RuntimeException e) {
            return "Arguments:\n" + TooLongToApprove.check(slot.call.argumentsJson(), "call's JSON arguments", Tool.APPROVAL_LIMIT);
        }
    }

    private void start(Slot slot) {
        CompletableFuture<ToolResult> future = new CompletableFuture<>();
        slot.running = future;
        slot.thread = Thread.ofVirtual().name("tool-" + slot.tool.name()).start(() -> future.complete(execute(slot)));
    }

    /** Runs the call on the current thread; never throws. */
    private ToolResult execute(Slot slot) {
        String summary = safeSummary(slot);
        turn.activity(slot.call.id(), slot.tool.name(), summary, ToolState.RUNNING);
        turn.countToolCall();
        long start = System.nanoTime();
        ToolResult result;
        try {
            result = slot.tool.execute(slot.args, turn.toolContext);
            if (result == null) {
                result = ToolResult.error("tool - '" + slot.tool.name() + "' returned no result");
            }
        } catch (IllegalArgumentException e) {
            result = ToolResult.error(e.getMessage() + ". Nothing was run.");
        } catch (RuntimeException e) {
            log.warn("tool - '{}' failed unexpectedly (call {})", slot.tool.name(), slot.call.id(), e);
            result = ToolResult.error("tool - '" + slot.tool.name() + "' failed unexpectedly (" + e.getClass().getSimpleName() + ")");
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        log.debug("tool - '{}' {} in {} ms ({} characters)", slot.tool.name(), result.status().name().toLowerCase(), ms, result.text().length());
        turn.activity(slot.call.id(), slot.tool.name(), summary, result.status().state());
        return result;
    }

    private static String safeSummary(Slot slot) {
        try {
            return slot.tool.summarize(slot.args);
        } catch (RuntimeException e) {
            return slot.tool.name();
        }
    }

    /** The result of a call running on its own thread; after an interrupt, waits at most until the grace deadline. */
    private ToolResult await(Slot slot) {
        try {
            if (!turn.signal().isRaised()) {
                CompletableFuture.anyOf(slot.running, turn.raised()).get();
            }
            if (slot.running.isDone()) {
                return slot.running.get();
            }
            if (graceDeadline == 0) {
                graceDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
            }
            return slot.running.get(Math.max(0, graceDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return abandon(slot);
        } catch (InterruptedException e) {
            turn.noteThreadInterrupt();
            return abandon(slot);
        } catch (ExecutionException e) {
            return ToolResult.error("tool - '" + slot.tool.name() + "' failed unexpectedly (" + e.getCause() + ")");
        }
    }

    private ToolResult abandon(Slot slot) {
        slot.thread.interrupt();
        log.warn("tool - '{}' (call {}) still running {} ms after the interrupt, abandoned", slot.tool.name(), slot.call.id(), GRACE_MS);
        return ToolResult.interrupted("the call was still running when the turn was stopped (" + turn.signal().reason()
                + "); it was abandoned and may have had partial effects.");
    }
}
