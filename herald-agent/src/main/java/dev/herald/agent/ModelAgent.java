package dev.herald.agent;

import dev.herald.agent.compress.Compactor;
import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelException;
import dev.herald.agent.model.ModelFailureText;
import dev.herald.agent.model.ModelRequest;
import dev.herald.agent.model.ModelResponse;
import dev.herald.agent.model.StreamObserver;
import dev.herald.agent.tool.Texts;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.ToolCall;
import dev.herald.core.turn.TurnOutcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent: a tool-calling loop over one {@link ModelClient}.
 *
 * <p><b>Threads.</b> A turn runs on the caller's thread (the gateway's virtual thread for the turn): model
 * calls, approvals and the recording of every message happen there, in order. Only tool calls of one
 * assistant message that are several and approved run on their own virtual threads ({@link ToolBatch}). One
 * instance serves any number of concurrent turns; its only shared state is the "approve always" memory.
 *
 * <p><b>Order of effects, per iteration.</b> (1) If the estimated request reaches the compression threshold,
 * summarize the older history ({@link Compactor}) and report it with {@code onCompaction} before anything else.
 * (2) Stream the model call: text deltas go to {@code onDelta}, then its usage to {@code onUsage}. (3) An answer
 * with tool calls is recorded with {@code onMessage} <em>before</em> any tool runs, so a crash mid-tool leaves a
 * transcript that shows the call. (4) Approvals are asked in call order, then the calls run, and each result is
 * recorded with {@code onMessage} in call order. (5) Repeat until an answer without tool calls (recorded, then
 * {@link TurnOutcome.Final}) or {@code agent.max_iterations} model calls ({@link TurnOutcome.NotCompleted}).
 *
 * <p><b>Interrupts.</b> Raising the gateway's {@link Interrupt} raises the turn's own signal: a model stream in
 * flight is cancelled (its streamed text recorded as a partial assistant message), running tools stop (shell
 * process trees are killed) and get an "interrupted" result, calls not yet started get a "not run" result, and
 * a pending approval becomes INTERRUPTED. Every recorded tool call thus has exactly one recorded result, and
 * the outcome is {@link TurnOutcome.Interrupted}. Nothing further is started once the signal is up.
 *
 * <p><b>Outcomes.</b> Final: a non-empty answer. Completed: an empty answer after tools ran (the work was the
 * point). Interrupted: the signal. NotCompleted: the iteration limit. Failed: the model refused
 * ({@code content_filter}) or called only unknown tools or malformed arguments three rounds in a row. Partial:
 * a model call broke off after producing text. Errored: the model failed before producing anything, gave an
 * empty first answer, or something unexpected happened (including the listener failing to record a message).
 * Its user text follows {@link UserErrors}. Model and tool failures never throw out of {@link #runTurn}; a store outage
 * (the listener could not record a message because the store cannot write) does, after the turn's signal stopped its
 * tools, so that the gateway interrupts and resumes the turn instead of failing it.
 *
 * <p><b>Answers cut off.</b> Whether a broken-off model stream may be asked again depends on whether its text already
 * reached a person, and only the listener knows that ({@link TurnListener#showsDeltas()}: a streaming chat or API
 * stream shows deltas, any other platform drops them). The agent passes it on to the client as its stream observer's
 * {@link StreamObserver#showsContent()}, and the client retries a stream that drops, stalls or ends without
 * {@code [DONE]} or a finish reason (within {@code model.max_retries}) only while no content was shown. When the call
 * still fails with text produced (shown, or the last attempt's when retries ran out), that text is recorded and
 * delivered with a notice that it is incomplete and how to get a whole answer ({@link ModelFailureText#cutOff}), and
 * the outcome is {@link TurnOutcome.Partial}: never {@code final}, so a resume mark stays, and the log says how far it
 * got.
 */
public final class ModelAgent implements Agent {
    private static final Logger log = LoggerFactory.getLogger(ModelAgent.class);
    private static final int MAX_REJECTED_ROUNDS = 3;
    static final String IMAGE_NOTICE_MARK = " cannot see images:";
    /** What the model is told about a side question ({@code /btw}). */
    static final String ASIDE_NOTE = "This is a side question, asked while the conversation goes on. Answer it briefly from the "
            + "conversation so far. You cannot use tools now, and this exchange is not kept in the conversation.";

    private final ModelClient client;
    private final AgentSettings settings;
    private final ToolRegistry tools;
    private final Compactor compactor;
    private final Approvals approvals;
    private final ImageAttachments images;
    private final InboundFiles files;
    private final VoiceNotes voice;

    /** An agent without tools and default settings. */
    public ModelAgent(ModelClient client) {
        this(client, AgentSettings.DEFAULT);
    }

    /** An agent without tools. */
    public ModelAgent(ModelClient client, AgentSettings settings) {
        this(client, settings, ToolRegistry.none());
    }

    public ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools) {
        this(client, settings, tools, platform -> Optional.empty(), new Approvals());
    }

    /**
     * @param fetchers the media fetcher of a platform by id, for a vision model's images (see {@link AgentSettings#vision()})
     */
    public ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers) {
        this(client, settings, tools, fetchers, new Approvals());
    }

    /**
     * @param voice where voice notes are transcribed before the model reads a message, and answers to them spoken ({@code voice})
     */
    public ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            dev.herald.agent.voice.VoiceSettings voice) {
        this(client, settings, tools, fetchers, new Approvals(), new VoiceNotes(voice, fetchers));
    }

    /** Like the one above, with the chats' own choices ({@code /voice}) read from {@code preferences}. */
    public ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            dev.herald.agent.voice.VoiceSettings voice, dev.herald.core.session.ChatPreferences preferences) {
        this(client, settings, tools, fetchers, new Approvals(), new VoiceNotes(voice, fetchers, preferences));
    }

    /** Several agents (one per model profile) share one "approve always" memory. */
    ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            Approvals approvals) {
        this(client, settings, tools, fetchers, approvals, VoiceNotes.off());
    }

    /** @param voice hears voice notes before the model reads a message (several profiles share one) */
    ModelAgent(ModelClient client, AgentSettings settings, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            Approvals approvals, VoiceNotes voice) {
        this.voice = Objects.requireNonNull(voice, "voice");
        this.client = Objects.requireNonNull(client, "client");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.tools = Objects.requireNonNull(tools, "tools");
        this.compactor = new Compactor(client, settings.compression());
        this.images = settings.vision() ? new ImageAttachments(fetchers, settings.maxImageBytes()) : null;
        this.files = new InboundFiles(fetchers, tools.settings().fileLimits());
        this.approvals = approvals;
    }

    AgentSettings settings() {
        return settings;
    }

    /** The profile's system prompt, then the persona's (a blank line between), or whichever is set; null for none. */
    private String systemPrompt(String personaPrompt) {
        if (personaPrompt == null || personaPrompt.isBlank()) {
            return settings.systemPrompt();
        }
        return settings.systemPrompt() == null ? personaPrompt : settings.systemPrompt() + "\n\n" + personaPrompt;
    }

    @Override
    public String describe() {
        return client.describe();
    }

    @Override
    public String modelName() {
        return client.modelName();
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        return runTurn(request, listener, interrupt, null);
    }

    /**
     * A turn whose system prompt is the profile's followed by {@code personaPrompt} (the chat's persona), when not null.
     */
    TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt, String personaPrompt) {
        return runTurn(request, listener, interrupt, personaPrompt, null);
    }

    /**
     * A turn as above whose model calls carry {@code reasoningEffort} (the chat's {@code /reasoning}; null for none), which
     * the client sends only when the model takes it.
     */
    TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt, String personaPrompt, String reasoningEffort) {
        Interrupt outer = interrupt == null ? new Interrupt() : interrupt;
        if (outer.isRaised()) {
            return new TurnOutcome.Interrupted(outer.reason());
        }
        if (voice.cannotHear(request.userMessage(), request.attachments()) && !request.continuesAfterToolResults()) {
            log.info("voice - a voice note from {} was answered without the model: voice.transcription is not configured", request.platformId());
            if (listener != null) {
                listener.onMessage(ChatMessage.assistant(VoiceNotes.NOT_CONFIGURED));
            }
            return new TurnOutcome.Final(VoiceNotes.NOT_CONFIGURED);
        }
        TurnOutcome outcome;
        try (Turn turn = new Turn(request, listener == null ? TurnListener.NONE : listener, outer, tools, systemPrompt(personaPrompt), images, files,
                voice)) {
            try {
                outcome = loop(turn, reasoningEffort);
            } catch (RuntimeException e) {
                turn.signal().raise("agent error");
                if (StoreException.isOutage(e)) {
                    // not the turn's failure: the gateway cuts the turn off and resumes it once the store writes again
                    log.warn("agent - turn stopped (session {}): the store could not record a message ({})", request.sessionId(),
                            e.getMessage());
                    throw e;
                }
                log.error("agent - turn failed unexpectedly (session {}): {}", request.sessionId(), e.toString(), e);
                outcome = new TurnOutcome.Errored(UserErrors.forUser(e), "agent - the turn failed unexpectedly ("
                        + e.getClass().getSimpleName() + ": " + Texts.line(e.getMessage(), 200) + ")");
            }
            turn.logDone(outcome, client.describe());
        }
        return outcome;
    }

    private TurnOutcome loop(Turn turn, String reasoningEffort) {
        for (int iteration = 1; iteration <= settings.maxIterations(); iteration++) {
            if (turn.signal().isRaised()) {
                return turn.interrupted();
            }
            turn.steer(); // what the user sent to steer the turn since the last call, after the tool calls it waited for
            TurnOutcome stopped = compactIfDue(turn);
            if (stopped != null) {
                return stopped;
            }
            Called called = callModel(turn, reasoningEffort);
            if (called.ended() != null) {
                return called.ended();
            }
            ModelResponse response = called.response();
            if (!response.hasToolCalls() || !turn.hasAnyTools()) {
                return answered(turn, response);
            }
            ChatMessage assistant = turn.assistantMessage(response);
            List<ToolCall> forClient = assistant.toolCalls().stream().filter(c -> turn.isClientTool(c.name())).toList();
            if (!forClient.isEmpty()) {
                return handOver(turn, assistant, forClient);
            }
            turn.record(assistant);
            ToolBatch.Outcome batch = new ToolBatch(turn, approvals, tools.settings().resultLimit()).run(assistant.toolCalls());
            if (batch.interrupted()) {
                return turn.interrupted();
            }
            turn.countToolRound(batch.allRejected());
            if (turn.rejectedRounds() >= MAX_REJECTED_ROUNDS) {
                return failed("agent - the model called unknown tools or sent malformed arguments " + MAX_REJECTED_ROUNDS
                        + " rounds in a row (tools offered: " + turn.tools.names() + "); try rephrasing, or a model that handles tools");
            }
        }
        String why = "agent - stopped after " + settings.maxIterations() + " model calls (agent.max_iterations) while the model was "
                + "still calling tools; send a message to let it continue";
        log.warn("{} (session {})", why, turn.request.sessionId());
        return new TurnOutcome.NotCompleted(why, turn.lastText());
    }

    /**
     * The model called tools its caller runs: Herald's own calls of the same message run first (recorded as usual),
     * then the turn ends with the caller's calls, which its next request answers. The caller's part is recorded as
     * its own assistant message, so a history the caller sends back reads the same as the one recorded.
     */
    private TurnOutcome handOver(Turn turn, ChatMessage assistant, List<ToolCall> forClient) {
        List<ToolCall> own = assistant.toolCalls().stream().filter(c -> !turn.isClientTool(c.name())).toList();
        if (!own.isEmpty()) {
            ChatMessage ownPart = ChatMessage.assistant(null, own);
            turn.record(ownPart);
            ToolBatch.Outcome batch = new ToolBatch(turn, approvals, tools.settings().resultLimit()).run(own);
            if (batch.interrupted()) {
                return turn.interrupted();
            }
        }
        turn.record(ChatMessage.assistant(assistant.content(), forClient));
        log.info("agent - the model called {} tool(s) its caller runs ({}); the turn waits for the caller's results",
                forClient.size(), forClient.stream().map(ToolCall::name).distinct().toList());
        return new TurnOutcome.ToolCallsRequested(assistant.content(), forClient);
    }

    /** A model call's result: the response, or the outcome that ends the turn. */
    private record Called(ModelResponse response, TurnOutcome ended) {
    }

    private Called callModel(Turn turn, String reasoningEffort) {
        ModelRequest request = ModelRequest.streaming(turn.modelMessages()).withTools(turn.specs())
                .withSampling(settings.temperature(), settings.maxTokens()).withReasoningEffort(reasoningEffort);
        if (settings.topP() != null) {
            request = request.withParameters(Map.of("top_p", settings.topP().toString()));
        }
        request = request.withParameters(turn.request.options().parameters());
        StreamedText streamed = new StreamedText(turn);
        turn.countModelCall();
        try {
            ModelResponse response = client.complete(request, streamed, turn.signal());
            turn.usage(response.usage());
            return new Called(response, null);
        } catch (ModelException e) {
            return new Called(null, brokenOff(e, streamed, turn));
        } catch (RuntimeException e) {
            log.error("model - {} failed unexpectedly ({})", client.describe(), e.toString(), e);
            streamed.reportPartial(turn);
            return new Called(null, new TurnOutcome.Errored(ModelFailureText.unexpected(),
                    "model - " + client.describe() + " failed unexpectedly (" + e + ")"));
        }
    }

    private TurnOutcome answered(Turn turn, ModelResponse response) {
        String text = response.content();
        if (response.hasToolCalls()) {
            log.warn("model - {} asked for tools although none are offered, ignored ({} calls, first '{}')", client.describe(),
                    response.toolCalls().size(), response.toolCalls().get(0).name());
            if (text.isBlank()) {
                return errored("model - " + client.modelName() + " asked to call '" + response.toolCalls().get(0).name()
                        + "' but no tools are enabled (" + response.toolCalls().size() + " calls); ask again without needing tools");
            }
        }
        if (text.isBlank() && "content_filter".equals(response.finishReason())) {
            return failed("model - " + client.modelName() + " refused to answer (finish content_filter); rephrase the request");
        }
        if (text.isBlank() && turn.toolRounds() > 0) {
            log.info("agent - the model ended with an empty answer after {} tool round(s); turn completed", turn.toolRounds());
            return new TurnOutcome.Completed();
        }
        if (text.isBlank()) {
            return errored("model - " + client.modelName() + " returned an empty reply (finish " + response.finishReason() + ", "
                    + response.reasoning().length() + " characters of reasoning); try again"
                    + ("length".equals(response.finishReason()) ? " or raise the token limit" : ""));
        }
        String reply = text + imageNotice(turn);
        try {
            voice.speak(turn.request.sessionKey(), turn.request.attachments(), reply, turn.toolContext, turn::sendFile); // before the answer's record, which lists it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        turn.record(ChatMessage.assistant(reply));
        return new TurnOutcome.Final(reply);
    }

    /**
     * For a model that sees no images, told once per conversation when a message carries one: the notice is part of
     * the recorded answer, so a later turn finds it in the history and does not repeat it.
     */
    private String imageNotice(Turn turn) {
        if (settings.vision() || !ImageAttachments.hasImage(turn.request.attachments())) {
            return "";
        }
        boolean told = turn.request.history().stream()
                .anyMatch(m -> m.role() == Role.ASSISTANT && m.content() != null && m.content().contains(IMAGE_NOTICE_MARK));
        return told ? "" : "\n\n(" + client.modelName() + IMAGE_NOTICE_MARK + " your image reached it only as an attachment line. "
                + "Send /model to see the models; those marked 'sees images' can look at it.)";
    }

    private TurnOutcome brokenOff(ModelException e, StreamedText streamed, Turn turn) {
        if (e.isInterrupted() || turn.signal().isRaised()) {
            streamed.reportPartial(turn);
            log.info("model - turn interrupted ({}, {} characters streamed)", turn.signal().reason(), streamed.text.length());
            return turn.interrupted();
        }
        String text = streamed.text.toString();
        if (!text.isBlank()) {
            TurnOutcome.Partial partial = new TurnOutcome.Partial(text, ModelFailureText.cutOff(e), e.getMessage());
            streamed.record(turn, partial.replyText());
            log.warn("agent - the answer was cut off after {} characters ({}); delivered with a notice that it is incomplete, "
                    + "outcome partial (session {}): {}", Texts.number(text.length()), streamed.shows
                    ? "shown as it streamed, so not asked again" : "retries used up", turn.request.sessionId(), e.getMessage());
            return partial;
        }
        log.warn("{}", e.getMessage());
        return new TurnOutcome.Errored(ModelFailureText.forUser(e), e.getMessage());
    }

    /** Compresses before the next model call when the estimate reaches the threshold; returns an outcome only when interrupted. */
    private TurnOutcome compactIfDue(Turn turn) {
        long estimate = turn.estimatedTokens();
        if (!compactor.due(estimate)) {
            return null;
        }
        Optional<Compactor.Plan> plan = compactor.plan(turn.conversation(), turn.goalIndex(), false);
        if (plan.isEmpty()) {
            log.warn("agent - history is ~{} tokens (threshold {} of {}) but too little of it can be summarized; continuing",
                    Texts.number(estimate), Texts.number(compactor.settings().triggerTokens()), Texts.number(compactor.settings().contextTokens()));
            return null;
        }
        Compaction compaction;
        try {
            turn.countModelCall();
            compaction = compactor.summarize(plan.get(), turn.signal(), turn::usage);
        } catch (ModelException e) {
            if (e.isInterrupted() || turn.signal().isRaised()) {
                return turn.interrupted();
            }
            log.warn("agent - compression failed, continuing with the full history: {}", e.getMessage());
            return null;
        }
        String child = null;
        try {
            child = turn.listener().onCompaction(compaction);
        } catch (UnsupportedOperationException e) {
            log.info("agent - this turn's listener keeps no lineage; continuing on the compacted history in memory only");
        }
        turn.compacted(Compactor.summaryMessage(compaction), compaction.kept());
        log.info("agent - compressed {} messages (~{} tokens) into a {}-character summary, kept {}; now ~{} of {} tokens (child session {})",
                compaction.summarizedMessages(), Texts.number(estimate), Texts.number(compaction.summary().length()),
                compaction.kept().size(), Texts.number(turn.estimatedTokens()), Texts.number(compactor.settings().contextTokens()), child);
        return null;
    }

    @Override
    public Optional<String> aside(String sessionKey, List<ChatMessage> history, String question, Interrupt interrupt) {
        return Optional.of(aside(history, question, interrupt, null));
    }

    /**
     * A side answer ({@code /btw}): one call without tools on the history's text (tool calls and their results left out,
     * so a snapshot taken mid tool call is still a valid request) and the question; nothing is recorded.
     */
    String aside(List<ChatMessage> history, String question, Interrupt interrupt, String personaPrompt) {
        List<ChatMessage> messages = new java.util.ArrayList<>(history.size() + 2);
        String system = systemPrompt(personaPrompt);
        messages.add(ChatMessage.system((system == null ? "" : system + "\n\n") + ASIDE_NOTE));
        for (ChatMessage m : history) {
            if (m.content() != null && !m.content().isBlank() && (m.role() == Role.USER || m.role() == Role.ASSISTANT)) {
                messages.add(m.role() == Role.USER ? ChatMessage.user(m.content()) : ChatMessage.assistant(m.content()));
            }
        }
        messages.add(ChatMessage.user(question));
        try {
            ModelResponse response = client.complete(ModelRequest.blocking(messages).withSampling(settings.temperature(), settings.maxTokens()),
                    StreamObserver.NONE, interrupt == null ? new Interrupt() : interrupt);
            log.info("agent - /btw answered from {} message(s) of history ({} characters)", messages.size() - 2,
                    Texts.number(response.content().length()));
            return response.content().isBlank() ? "The model gave no answer to that; try asking again." : response.content().strip();
        } catch (ModelException e) {
            log.warn("agent - /btw failed: {}", e.getMessage());
            return ModelFailureText.forUser(e);
        }
    }

    /** Summarizes {@code history} for /compress, keeping the newest part and the last user message. */
    @Override
    public Optional<Compaction> compact(List<ChatMessage> history, Interrupt interrupt) {
        return compact(history, "", interrupt);
    }

    /** The reasoning efforts this profile's model takes ({@code reasoning_efforts}); empty when none. */
    List<String> reasoningEfforts() {
        return client.reasoningEfforts();
    }

    /** How full the next request of a chat with {@code history} on {@code platformId} would be ({@code /context}). */
    dev.herald.agent.compress.ContextUse context(String profile, List<ChatMessage> history, String personaPrompt, String platformId) {
        return dev.herald.agent.compress.ContextUse.of(profile, client.modelName(), systemPrompt(personaPrompt),
                tools.forPlatform(platformId).specs(), history, compactor.settings());
    }

    /** {@link #compact(List, Interrupt)} whose summary keeps above all what {@code focus} names (a user's words; may be empty). */
    Optional<Compaction> compact(List<ChatMessage> history, String focus, Interrupt interrupt) {
        int goal = -1;
        for (int i = history.size() - 1; i >= 0 && goal < 0; i--) {
            goal = history.get(i).role() == Role.USER ? i : -1;
        }
        Optional<Compactor.Plan> plan = compactor.plan(history, goal, true);
        if (plan.isEmpty()) {
            log.info("agent - /compress: {} messages are too few to summarize", history.size());
            return Optional.empty();
        }
        try {
            Compaction compaction = compactor.summarize(plan.get(), focus, interrupt == null ? new Interrupt() : interrupt, usage -> {
            });
            log.info("agent - /compress summarized {} messages into {} characters, kept {}", compaction.summarizedMessages(),
                    Texts.number(compaction.summary().length()), compaction.kept().size());
            return Optional.of(compaction);
        } catch (ModelException e) {
            log.warn("agent - /compress failed: {}", e.getMessage());
            return Optional.empty();
        }
    }

    private static TurnOutcome errored(String message) {
        log.warn("{}", message);
        return new TurnOutcome.Errored(message);
    }

    private static TurnOutcome failed(String message) {
        log.warn("{}", message);
        return new TurnOutcome.Failed(message);
    }

    /**
     * Forwards text deltas and keeps those of the current attempt, so a broken-off answer can still be recorded as far
     * as it came; shows content when the turn's listener does.
     */
    private static final class StreamedText implements StreamObserver {
        private final Turn turn;
        final boolean shows;
        final StringBuilder text = new StringBuilder();

        StreamedText(Turn turn) {
            this.turn = turn;
            this.shows = turn.listener().showsDeltas();
        }

        @Override
        public void onContent(String delta) {
            text.append(delta);
            turn.delta(delta);
        }

        @Override
        public boolean showsContent() {
            return shows;
        }

        @Override
        public void onRestart() {
            text.setLength(0);
        }

        /** Records what came before the call broke off. */
        void reportPartial(Turn turn) {
            if (!text.toString().isBlank()) {
                record(turn, text.toString());
            }
        }

        /** Records {@code reply} as the answer; a failing listener is logged, never thrown, on this path. */
        void record(Turn turn, String reply) {
            try {
                turn.record(ChatMessage.assistant(reply));
            } catch (RuntimeException e) {
                log.warn("model - could not record the partial reply ({} characters): {}", reply.length(), e.toString());
            }
        }
    }
}
