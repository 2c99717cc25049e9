package dev.herald.agent;

import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelException;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.agent.model.Usage;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.continuity.TurnOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Agent} that answers each turn with one streamed model call (no tools yet).
 *
 * <p>A turn is a sequence of steps; today every turn has exactly one: call the model, report the answer.
 * The tool loop will add steps (run the calls, append the results, call again) inside {@link #runTurn},
 * keeping the message list and the outcome mapping as they are.
 *
 * <p>What the listener sees: text deltas as they stream ({@code onDelta}), the usage of each call
 * ({@code onUsage}), then the assistant message ({@code onMessage}) before the turn returns.
 * Outcomes: a non-empty answer is {@link TurnOutcome.Final}; a model failure is {@link TurnOutcome.Errored}
 * with the client's readable message; an empty answer is {@link TurnOutcome.Errored} too (nothing to
 * deliver is a failure the user should hear about); an interrupt is {@link TurnOutcome.Interrupted} with the
 * interrupt's reason. When a call breaks off (interrupt or error) after some text was streamed, that partial
 * text is reported with {@code onMessage} as it was shown, so the transcript matches what the user saw and
 * the next turn knows what was already said. Model failures never throw.
 */
public final class ModelAgent implements Agent {
    private static final Logger log = LoggerFactory.getLogger(ModelAgent.class);

    private final ModelClient client;
    private final AgentSettings settings;

    public ModelAgent(ModelClient client) {
        this(client, AgentSettings.DEFAULT);
    }

    public ModelAgent(ModelClient client, AgentSettings settings) {
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public String describe() {
        return client.describe();
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        TurnListener out = listener == null ? TurnListener.NONE : listener;
        Interrupt signal = interrupt == null ? new Interrupt() : interrupt;
        if (signal.isRaised()) {
            return new TurnOutcome.Interrupted(signal.reason());
        }
        List<ChatMessage> messages = messagesFor(request);
        StreamedText streamed = new StreamedText(out);
        ModelResponse response;
        try {
            response = client.complete(modelRequest(messages), streamed, signal);
        } catch (ModelException e) {
            return brokenOff(e, streamed, out, signal);
        } catch (RuntimeException e) {
            log.error("model - {} failed unexpectedly ({})", client.describe(), e.toString(), e);
            streamed.reportPartial();
            return new TurnOutcome.Errored("model - " + client.describe() + " failed unexpectedly (" + e + "); see the log");
        }
        Usage usage = response.usage();
        if (usage != null) {
            out.onUsage(usage.promptTokens(), usage.completionTokens());
        }
        return answered(response, out);
    }

    /** The model's view of the turn: the system prompt, the history, then the user's message. */
    List<ChatMessage> messagesFor(TurnRequest request) {
        List<ChatMessage> messages = new ArrayList<>(request.history().size() + 2);
        if (settings.systemPrompt() != null) {
            messages.add(ChatMessage.system(settings.systemPrompt()));
        }
        messages.addAll(request.history());
        messages.add(ChatMessage.user(request.userMessage()));
        return messages;
    }

    private ModelRequest modelRequest(List<ChatMessage> messages) {
        return ModelRequest.streaming(messages).withSampling(settings.temperature(), settings.maxTokens());
    }

    private TurnOutcome answered(ModelResponse response, TurnListener out) {
        String text = response.content();
        if (response.hasToolCalls()) {
            log.warn("model - {} asked for tools although none are offered, ignored ({} calls, first '{}')", client.describe(),
                    response.toolCalls().size(), response.toolCalls().get(0).name());
        }
        if (text.isBlank() && response.hasToolCalls()) {
            return errored("model - " + client.describe() + " asked to call '" + response.toolCalls().get(0).name()
                    + "' but no tools are enabled (" + response.toolCalls().size() + " calls); ask again without needing tools");
        }
        if (text.isBlank()) {
            return errored("model - " + client.describe() + " returned an empty reply (finish " + response.finishReason() + ", "
                    + response.reasoning().length() + " characters of reasoning); try again"
                    + ("length".equals(response.finishReason()) ? " or raise the token limit" : ""));
        }
        out.onMessage(ChatMessage.assistant(text));
        return new TurnOutcome.Final(text);
    }

    private TurnOutcome brokenOff(ModelException e, StreamedText streamed, TurnListener out, Interrupt signal) {
        streamed.reportPartial();
        if (e.isInterrupted() || signal.isRaised()) {
            String reason = signal.reason() != null ? signal.reason() : "interrupted";
            log.info("model - turn interrupted ({}, {} characters streamed)", reason, streamed.length());
            return new TurnOutcome.Interrupted(reason);
        }
        return errored(e.getMessage());
    }

    private static TurnOutcome errored(String message) {
        log.warn("{}", message);
        return new TurnOutcome.Errored(message);
    }

    /** Forwards text deltas to the listener and keeps them, so a broken-off answer can still be recorded. */
    private static final class StreamedText implements StreamObserver {
        private final TurnListener listener;
        private final StringBuilder text = new StringBuilder();

        StreamedText(TurnListener listener) {
            this.listener = listener;
        }

        @Override
        public void onContent(String delta) {
            text.append(delta);
            try {
                listener.onDelta(delta);
            } catch (RuntimeException e) {
                log.warn("model - a stream listener failed, delta dropped ({} characters): {}", delta.length(), e.toString());
            }
        }

        int length() {
            return text.length();
        }

        /** Records what was shown before the call broke off; a failing listener is logged, never thrown, on this path. */
        void reportPartial() {
            if (text.toString().isBlank()) {
                return;
            }
            try {
                listener.onMessage(ChatMessage.assistant(text.toString()));
            } catch (RuntimeException e) {
                log.warn("model - could not record the partial reply ({} characters): {}", text.length(), e.toString());
            }
        }
    }
}
