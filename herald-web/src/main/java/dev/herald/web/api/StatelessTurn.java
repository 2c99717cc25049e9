package dev.herald.web.api;

import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.turn.TurnOutcome;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One stateless turn: the request carries the whole history, the agent runs it on a virtual thread of
 * its own, nothing is stored. Deltas and the outcome go to the request's {@link ReplyExchange}.
 *
 * <p>Outcomes map to responses: {@code Final} and {@code Completed} → 200 {@code stop};
 * {@code NotCompleted} (an iteration limit) → 200 {@code length} with the partial reply or the reason;
 * {@code Failed}, {@code Errored} → 502 with the readable reason; {@code Partial} (the model's answer broke off) → 502
 * {@code answer_cut_off} with the part and a notice, or, on a stream that showed the part, an error event with the notice
 * in place of {@code finish_reason: stop}; {@code Interrupted}
 * → 503 (the gateway interrupts turns when it stops or drains, so a retry later is the right move); an
 * exception thrown by the agent (a bug: agents return outcomes) → 500.
 */
final class StatelessTurn implements TurnListener, Runnable {
    private static final Logger log = LoggerFactory.getLogger(StatelessTurn.class);
    static final Duration RETRY_AFTER_INTERRUPT = Duration.ofSeconds(5);

    private final Agent agent;
    private final TurnRequest request;
    private final ReplyExchange exchange;
    private final Interrupt interrupt;
    private final AtomicReference<Usage> usage = new AtomicReference<>(Usage.NONE);
    private final ToolRounds rounds;
    private final List<ChatMessage> recorded = new CopyOnWriteArrayList<>();
    private final boolean streamed;

    private StatelessTurn(Agent agent, TurnRequest request, ReplyExchange exchange, Interrupt interrupt, ToolRounds rounds,
            boolean streamed) {
        this.agent = agent;
        this.request = request;
        this.exchange = exchange;
        this.interrupt = interrupt;
        this.rounds = rounds;
        this.streamed = streamed;
    }

    /** Starts the turn on a new virtual thread; its reply arrives through the returned exchange. */
    static ReplyExchange start(Agent agent, ChatRequest chat, String platformId) {
        return start(agent, chat, chat.options(null), platformId, new ToolRounds(), "chatcmpl-");
    }

    /**
     * Starts the turn with {@code options}; the client's history gets back the tool rounds {@code rounds} kept for it,
     * and a turn that ends with client tool calls leaves its own rounds there.
     */
    static ReplyExchange start(Agent agent, ChatRequest chat, TurnOptions options, String platformId, ToolRounds rounds, String idPrefix) {
        Interrupt interrupt = new Interrupt();
        ReplyExchange exchange = new ReplyExchange(idPrefix + UUID.randomUUID(), interrupt);
        List<ChatMessage> history = chat.continuation() ? rounds.restore(chat.history()) : chat.history();
        TurnRequest request = new TurnRequest(UUID.randomUUID().toString(), null, history, chat.userMessage(), false, platformId, options);
        Thread.ofVirtual().name("api_server-turn-" + exchange.completionId())
                .start(new StatelessTurn(agent, request, exchange, interrupt, rounds, chat.stream()));
        return exchange;
    }

    @Override
    public void run() {
        TurnOutcome outcome;
        try {
            outcome = agent.runTurn(request, this, interrupt);
        } catch (RuntimeException e) {
            log.warn("api_server - agent {} threw instead of returning an outcome (session {})", agent.describe(), request.sessionId(), e);
            exchange.fail(ApiError.internal(UserErrors.REQUEST_FAILED));
            return;
        }
        deliver(outcome);
    }

    private void deliver(TurnOutcome outcome) {
        Usage used = usage.get();
        switch (outcome) {
            case TurnOutcome.Final f -> exchange.finish(f.reply(), "stop", used);
            case TurnOutcome.Completed c -> exchange.finish("", "stop", used);
            case TurnOutcome.NotCompleted n -> exchange.finish(n.partialReply() != null ? n.partialReply() : forClient(n.why()), "length", used);
            case TurnOutcome.Interrupted i -> exchange.fail(ApiError.unavailable(
                    "the turn was interrupted (" + i.reason() + "); retry the request", "interrupted", RETRY_AFTER_INTERRUPT));
            case TurnOutcome.Failed f -> exchange.fail(ApiError.badGateway("The agent gave up: " + forClient(f.why())));
            case TurnOutcome.Partial p -> exchange.fail(ApiError.cutOff(p.replyText()));
            case TurnOutcome.Errored e -> exchange.fail(ApiError.badGateway(forClient(e.error())));
            case TurnOutcome.ToolCallsRequested t -> {
                rounds.remember(t.calls(), recorded.isEmpty() ? List.of() : recorded.subList(0, recorded.size() - 1));
                exchange.finishWithToolCalls(t.content(), t.calls(), used);
            }
            case null -> exchange.fail(ApiError.internal(UserErrors.REQUEST_FAILED));
        }
    }

    /** An outcome's text as the client may read it ({@link UserErrors}: the operator's detail stays in the log). */
    private static String forClient(String text) {
        return UserErrors.fromOperatorText(text, UserErrors.REQUEST_FAILED);
    }

    @Override
    public void onMessage(ChatMessage message) {
        // stateless: nothing is stored; the final reply comes with the outcome. Kept for a client tool round trip.
        recorded.add(message);
    }

    @Override
    public void onDelta(String text) {
        exchange.delta(text);
    }

    /** A streamed request shows deltas as they come; a whole answer's are dropped, so a broken model stream is asked again. */
    @Override
    public boolean showsDeltas() {
        return streamed;
    }

    @Override
    public void onToolActivity(String callId, String toolName, String summary, ToolState state) {
        if (state == ToolState.RUNNING) {
            exchange.toolRunning();
        }
    }

    @Override
    public void onUsage(long inputTokens, long outputTokens) {
        usage.updateAndGet(u -> u.plus(inputTokens, outputTokens));
    }
}
