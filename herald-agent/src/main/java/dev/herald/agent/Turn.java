package dev.herald.agent;

import dev.herald.agent.compress.TokenEstimate;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.ToolSpec;
import dev.herald.agent.model.Usage;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.ToolContext;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSet;
import dev.herald.agent.tool.Workspaces;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolState;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one running turn: the messages the model sees, the turn's own interrupt signal, the tools
 * and their context, and the counters for the closing log line. Owned by the turn's thread; only the
 * counters and the signal are touched by tool threads.
 *
 * <p>The turn's signal is its own {@link Interrupt}, raised when the gateway's is (a relay registered for the
 * turn's lifetime), so the agent can also stop its tools itself (an unexpected failure) without raising the
 * gateway's signal.
 */
final class Turn implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Turn.class);

    final TurnRequest request;
    final ToolSet tools;
    private final List<dev.herald.core.agent.TurnOptions.ClientTool> clientTools;
    private final List<ToolSpec> specs;
    final ToolContext toolContext;
    private final TurnListener listener;
    private final Interrupt outer;
    private final Interrupt signal = new Interrupt();
    private final Runnable relay;
    private final CompletableFuture<String> raised = new CompletableFuture<>();
    private final ChatMessage system;
    private final List<ChatMessage> conversation;
    private final long fixedTokens;
    private long conversationTokens;
    private int goal;
    private final Set<String> callIds = new HashSet<>();
    private final long started = System.nanoTime();
    private int modelCalls;
    private final AtomicInteger toolCalls = new AtomicInteger();
    private final AtomicLong inputTokens = new AtomicLong();
    private final AtomicLong outputTokens = new AtomicLong();
    private int toolRounds;
    private int rejectedRounds;
    private String lastText;
    private boolean threadInterrupted;

    Turn(TurnRequest request, TurnListener listener, Interrupt outer, ToolRegistry registry, String systemPrompt) {
        this(request, listener, outer, registry, systemPrompt, null);
    }

    /**
     * @param images fetches the images of attachment lines for a vision model; null when the model sees no images
     *               (then images an API caller sent are left out too)
     */
    Turn(TurnRequest request, TurnListener listener, Interrupt outer, ToolRegistry registry, String systemPrompt,
            ImageAttachments images) {
        this(request, listener, outer, registry, systemPrompt, images, null);
    }

    /**
     * @param files saves the files of the turn's message into the workspace and names them for the model; null (or a
     *              turn without tools, which could not read them) leaves each attachment a reference line
     */
    Turn(TurnRequest request, TurnListener listener, Interrupt outer, ToolRegistry registry, String systemPrompt,
            ImageAttachments images, InboundFiles files) {
        this(request, listener, outer, registry, systemPrompt, images, files, null);
    }

    /** @param voice hears the voice notes of the turn's message before the model reads it; null leaves them attachments */
    Turn(TurnRequest request, TurnListener listener, Interrupt outer, ToolRegistry registry, String systemPrompt,
            ImageAttachments images, InboundFiles files, VoiceNotes voice) {
        this.request = request;
        this.listener = listener;
        this.outer = outer;
        this.clientTools = request.options().clientTools();
        Set<String> shadowed = new HashSet<>();
        clientTools.forEach(t -> shadowed.add(t.name()));
        ToolSet own = registry.forTurn(request.platformId(), request.options().toolAllowlist()).without(shadowed);
        // a caller with its own tools where nobody can approve, or a sender who may not approve: Herald's always-asking
        // tools would only be denied
        this.tools = (!clientTools.isEmpty() && !listener.canApprove()) || !listener.senderMayApprove() ? own.withoutAlwaysAsking() : own;
        this.toolContext = registry.context(request, signal).withOutgoing(listener::onFile);
        this.system = systemPrompt == null ? null : ChatMessage.system(systemPrompt);
        this.conversation = new ArrayList<>(request.history().size() + 8);
        signal.onRaise(() -> raised.complete(signal.reason()));
        this.relay = () -> signal.raise(outer.reason());
        outer.onRaise(relay);
        List<ChatMessage> initial = new ArrayList<>(request.history());
        initial.forEach(m -> m.toolCalls().forEach(c -> callIds.add(c.id())));
        if (request.continuesAfterToolResults()) {
            goal = -1;
            for (int i = 0; i < initial.size(); i++) {
                goal = initial.get(i).role() == dev.herald.core.transcript.Role.USER ? i : goal;
            }
        } else {
            goal = initial.size();
            initial.add(ChatMessage.user(request.userMessage(), request.options().images(), request.attachments()));
        }
        if (voice != null) {
            try {
                initial = voice.hear(initial, goal, request.platformId(), toolContext); // a resumed turn's message too: kept transcripts are reused
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                signal.raise("interrupted while a voice note was transcribed");
            }
        }
        if (images != null) {
            initial = images.attach(initial, request.platformId());
        } else {
            initial.replaceAll(m -> m.hasImages() ? m.withImages(List.of()) : m);
        }
        if (files != null && !tools.specs().isEmpty()) {
            initial = files.describe(initial, request.continuesAfterToolResults() ? -1 : goal, request.platformId(), toolContext);
        } else {
            initial.replaceAll(m -> m.attachments().isEmpty() || m.role() != dev.herald.core.transcript.Role.USER ? m
                    : m.withContent(MessageEvent.withAttachmentLines(m.content(), m.attachments())));
        }
        initial.forEach(this::add);
        List<ToolSpec> offered = new ArrayList<>(tools.specs());
        clientTools.forEach(t -> offered.add(ToolSpec.of(t.name(), t.description(), t.parametersJson())));
        this.specs = List.copyOf(offered);
        fixedTokens = TokenEstimate.of(system) + TokenEstimate.ofTools(specs);
    }

    /** Every tool offered to the model: Herald's own, then the caller's ({@link #isClientTool}). */
    List<ToolSpec> specs() {
        return specs;
    }

    /** True when {@code name} is a tool the caller runs itself: a call to it ends the turn. */
    boolean isClientTool(String name) {
        return request.options().hasClientTool(name);
    }

    boolean hasAnyTools() {
        return !specs.isEmpty();
    }

    Interrupt signal() {
        return signal;
    }

    /** Completes when the turn's signal is raised; lets waits wake up at once. */
    CompletableFuture<String> raised() {
        return raised;
    }

    /** Sends {@code file} with the reply (recorded with it by the gateway, delivered after its text). */
    void sendFile(dev.herald.core.platform.OutboundFile file) {
        listener.onFile(file);
    }

    /** Stores a message through the gateway (durable before it returns), then adds it to what the model sees. */
    void record(ChatMessage message) {
        listener.onMessage(message);
        add(message);
    }

    /**
     * Adds the messages the user sent to steer the turn since the last call ({@code /steer}); the listener stored them
     * before it returned them.
     */
    void steer() {
        for (ChatMessage m : listener.steering()) {
            add(m);
            log.info("agent - the user steered the turn ({} characters; session {})", m.content() == null ? 0 : m.content().length(),
                    request.sessionId());
        }
    }

    private void add(ChatMessage message) {
        conversation.add(message);
        conversationTokens += TokenEstimate.of(message);
    }

    /** The request's messages: the system prompt, then the conversation. */
    List<ChatMessage> modelMessages() {
        List<ChatMessage> all = new ArrayList<>(conversation.size() + 1);
        if (system != null) {
            all.add(system);
        }
        all.addAll(conversation);
        return all;
    }

    long estimatedTokens() {
        return fixedTokens + conversationTokens;
    }

    List<ChatMessage> conversation() {
        return List.copyOf(conversation);
    }

    int goalIndex() {
        return goal;
    }

    /** Continues on a compacted conversation: the summary, then the kept messages (the goal among them). */
    void compacted(ChatMessage summary, List<ChatMessage> kept) {
        ChatMessage goalMessage = goal >= 0 ? conversation.get(goal) : null;
        conversation.clear();
        conversationTokens = 0;
        add(summary);
        kept.forEach(this::add);
        goal = -1;
        for (int i = 0; i < conversation.size(); i++) {
            if (conversation.get(i) == goalMessage) {
                goal = i;
            }
        }
    }

    /** The response as an assistant message, with call ids made unique in the conversation (servers reuse {@code call_0}). */
    ChatMessage assistantMessage(ModelResponse response) {
        List<ToolCall> calls = new ArrayList<>(response.toolCalls().size());
        for (ToolCall call : response.toolCalls()) {
            String id = call.id();
            for (int n = 2; !callIds.add(id); n++) {
                id = call.id() + "_" + n;
            }
            calls.add(id.equals(call.id()) ? call : new ToolCall(id, call.name(), call.argumentsJson()));
        }
        String content = response.content();
        if (!content.isBlank()) {
            lastText = content;
        }
        return ChatMessage.assistant(content.isEmpty() ? null : content, calls);
    }

    void delta(String text) {
        try {
            listener.onDelta(text);
        } catch (RuntimeException e) {
            log.warn("agent - a stream listener failed, delta dropped ({} characters): {}", text.length(), e.toString());
        }
    }

    void usage(Usage usage) {
        if (usage == null) {
            return;
        }
        inputTokens.addAndGet(usage.promptTokens());
        outputTokens.addAndGet(usage.completionTokens());
        try {
            listener.onUsage(usage.promptTokens(), usage.completionTokens());
        } catch (RuntimeException e) {
            log.warn("agent - the usage listener failed ({} in / {} out tokens): {}", usage.promptTokens(), usage.completionTokens(),
                    e.toString());
        }
    }

    void activity(String callId, String tool, String summary, ToolState state) {
        try {
            listener.onToolActivity(callId, tool, summary, state);
        } catch (RuntimeException e) {
            log.debug("agent - the tool activity listener failed for '{}': {}", tool, e.toString());
        }
    }

    TurnListener listener() {
        return listener;
    }

    void countModelCall() {
        modelCalls++;
    }

    void countToolCall() {
        toolCalls.incrementAndGet();
    }

    void countToolRound(boolean allRejected) {
        toolRounds++;
        rejectedRounds = allRejected ? rejectedRounds + 1 : 0;
    }

    int toolRounds() {
        return toolRounds;
    }

    int rejectedRounds() {
        return rejectedRounds;
    }

    String lastText() {
        return lastText;
    }

    void noteThreadInterrupt() {
        threadInterrupted = true;
        signal.raise("thread interrupted");
    }

    TurnOutcome interrupted() {
        String reason = outer.reason() != null ? outer.reason() : signal.reason();
        return new TurnOutcome.Interrupted(reason == null ? "interrupted" : reason);
    }

    /** The closing log line: time, calls and tokens. */
    void logDone(TurnOutcome outcome, String model) {
        log.info("agent - turn done in {} ms: {} model call(s), {} tool call(s), {}/{} tokens in/out ({}, {}, session {})",
                Texts.number(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)), modelCalls, toolCalls.get(),
                Texts.number(inputTokens.get()), Texts.number(outputTokens.get()), outcome.kind(), model, request.sessionId());
    }

    @Override
    public void close() {
        outer.forget(relay);
        signal.raise("turn ended");
        if (request.sessionKey() == null) {
            Workspaces.remove(toolContext.workspace()); // a stateless turn's workspace has no later turn to serve
        }
        if (threadInterrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
