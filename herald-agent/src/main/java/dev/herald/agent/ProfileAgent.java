package dev.herald.agent;

import dev.herald.agent.model.ModelClient;
import dev.herald.agent.persona.Personas;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent over named model profiles ({@code model:} is {@value #DEFAULT}, {@code models.<name>} the others): each
 * turn runs on one profile's {@link ModelAgent}, chosen in this order: the profile the turn's caller named
 * ({@link dev.herald.core.agent.TurnOptions#profile()}, the API's {@code model}), the one its lane chose with
 * {@code /model} ({@link ModelChoiceStore}), the default. A stored choice that is no longer configured falls back to
 * the default with a log line. The profiles share the tools and the "approve always" memory.
 *
 * <p>A chat's persona ({@code /personality}, {@link Personas}) adds its system prompt after the profile's on every call
 * of the chat's turns, and its model profile stands in for the default: a {@code /model} choice (made after the persona
 * was chosen, since choosing a persona with a model clears it) and a caller's named profile still win.
 *
 * <p>A channel's settings ({@link TurnOptions#channel()}, {@code platforms.<type>.channels.<id>}) come below the chat's
 * own choices: its persona applies when the chat chose none, its model profile when the chat chose neither a
 * {@code /model} nor a persona with a model.
 *
 * <p>The turn's user's long-term memory ({@link dev.herald.agent.memory.MemoryBook}) comes last in the system prompt: the
 * facts they asked to be remembered, within {@code agent.memory.prompt_budget_chars}, read once per turn.
 */
public final class ProfileAgent implements Agent {
    private static final Logger log = LoggerFactory.getLogger(ProfileAgent.class);
    /** The name of the profile {@code model:} configures. */
    public static final String DEFAULT = "default";

    /** One named model: its client, how the agent uses it, and what its tokens cost ({@code /usage}). */
    public record Profile(String name, ModelClient client, AgentSettings settings, ModelOption.Prices prices) {
        public Profile {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(settings, "settings");
            prices = prices == null ? ModelOption.Prices.NONE : prices;
        }

        /** A profile without prices. */
        public Profile(String name, ModelClient client, AgentSettings settings) {
            this(name, client, settings, ModelOption.Prices.NONE);
        }
    }

    private final Map<String, ModelAgent> agents = new LinkedHashMap<>();
    private final ModelAgent fallback;
    private final ModelChoiceStore choices;
    private final List<ModelOption> options;
    private final Personas personas;
    private final dev.herald.core.session.ChatPreferences preferences;
    private final dev.herald.agent.memory.MemoryBook memory;

    /**
     * @param profiles the profiles, the default first; names unique
     * @param fetchers a platform's media fetcher by id, for vision profiles
     * @param choices  the lanes' {@code /model} choices
     */
    public ProfileAgent(List<Profile> profiles, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            ModelChoiceStore choices) {
        this(profiles, tools, fetchers, choices, dev.herald.agent.voice.VoiceSettings.defaults());
    }

    /** @param voiceSettings where voice notes are transcribed and answers to them spoken ({@code voice:}; off while unset) */
    public ProfileAgent(List<Profile> profiles, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            ModelChoiceStore choices, dev.herald.agent.voice.VoiceSettings voiceSettings) {
        this(profiles, tools, fetchers, choices, voiceSettings, dev.herald.core.session.ChatPreferences.inMemory());
    }

    /** @param preferences the chats' own choices, such as {@code /voice} */
    public ProfileAgent(List<Profile> profiles, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            ModelChoiceStore choices, dev.herald.agent.voice.VoiceSettings voiceSettings, dev.herald.core.session.ChatPreferences preferences) {
        this(profiles, tools, fetchers, choices, voiceSettings, preferences, Personas.none());
    }

    /** @param personas the configured personas and the chats' choice of one ({@code /personality}) */
    public ProfileAgent(List<Profile> profiles, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            ModelChoiceStore choices, dev.herald.agent.voice.VoiceSettings voiceSettings, dev.herald.core.session.ChatPreferences preferences,
            Personas personas) {
        this(profiles, tools, fetchers, choices, voiceSettings, preferences, personas, null);
    }

    /** @param memory the users' long-term memory, whose facts end each turn's system prompt; null for none */
    public ProfileAgent(List<Profile> profiles, ToolRegistry tools, Function<String, Optional<MediaFetcher>> fetchers,
            ModelChoiceStore choices, dev.herald.agent.voice.VoiceSettings voiceSettings, dev.herald.core.session.ChatPreferences preferences,
            Personas personas, dev.herald.agent.memory.MemoryBook memory) {
        this.memory = memory;
        this.personas = Objects.requireNonNull(personas, "personas");
        this.preferences = Objects.requireNonNull(preferences, "preferences");
        VoiceNotes voice = new VoiceNotes(voiceSettings, fetchers, preferences);
        if (profiles.isEmpty()) {
            throw new IllegalArgumentException("at least one model profile is needed");
        }
        Approvals approvals = new Approvals();
        List<ModelOption> list = new ArrayList<>();
        for (Profile p : profiles) {
            if (agents.putIfAbsent(p.name(), new ModelAgent(p.client(), p.settings(), tools, fetchers, approvals, voice)) != null) {
                throw new IllegalArgumentException("model profile '" + p.name() + "' is configured twice");
            }
            list.add(new ModelOption(p.name(), p.client().modelName(), p.settings().vision(), p.prices()));
        }
        this.fallback = agents.get(profiles.getFirst().name());
        this.choices = Objects.requireNonNull(choices, "choices");
        this.options = List.copyOf(list);
    }

    @Override
    public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
        TurnOptions.ChannelDefaults channel = request.options().channel();
        Optional<Personas.Persona> persona = request.sessionKey() == null ? Optional.empty()
                : personas.of(new SessionKey(request.sessionKey()), request.user());
        Optional<Personas.Persona> modelPersona = persona; // whose model profile counts: the chat's persona's over the channel's
        if (persona.isEmpty() && channel != null && channel.personality() != null) {
            persona = Optional.ofNullable(personas.all().get(channel.personality())); // names checked with the configuration
            modelPersona = channel.profile() == null ? persona : Optional.empty();
        }
        String personaPrompt = withMemory(persona.map(Personas.Persona::systemPrompt).orElse(null), request.user());
        String named = request.options().profile();
        if (named != null) {
            ModelAgent agent = agents.get(named);
            if (agent == null) {
                String why = "model - no model profile is named '" + named + "' (configured: " + String.join(", ", agents.keySet()) + ")";
                log.warn("{}", why);
                return new TurnOutcome.Errored(why);
            }
            return agent.runTurn(request, listener, interrupt, personaPrompt, reasoningEffort(request.sessionKey(), agent));
        }
        ModelAgent agent = forLane(request.sessionKey(), modelPersona, channel == null ? null : channel.profile());
        return agent.runTurn(request, listener, interrupt, personaPrompt, reasoningEffort(request.sessionKey(), agent));
    }

    /** {@code personaPrompt} followed by the block of {@code user}'s remembered facts, when they have any. */
    private String withMemory(String personaPrompt, String user) {
        if (memory == null) {
            return personaPrompt;
        }
        Optional<String> block = memory.promptBlock(user);
        if (block.isEmpty()) {
            return personaPrompt;
        }
        return personaPrompt == null || personaPrompt.isBlank() ? block.get() : personaPrompt + "\n\n" + block.get();
    }

    /** The chat's {@code /reasoning} effort when {@code agent}'s model takes it, else null (nothing is sent). */
    private String reasoningEffort(String sessionKey, ModelAgent agent) {
        if (sessionKey == null) {
            return null;
        }
        return ReasoningCommand.chosen(preferences, new SessionKey(sessionKey)).filter(agent.reasoningEfforts()::contains).orElse(null);
    }

    /** The name of the model profile the chat of {@code key} runs on: its /model choice, else its persona's, else the default. */
    public String profileOf(SessionKey key) {
        ModelAgent agent = forLane(key.value(), personas.of(key));
        return agents.entrySet().stream().filter(e -> e.getValue() == agent).map(Map.Entry::getKey).findFirst().orElse(DEFAULT);
    }

    /** The model of the profile named {@code profile}, as any chat user may see it. */
    String modelOf(String profile) {
        return agents.getOrDefault(profile, fallback).modelName();
    }

    /** The reasoning efforts ({@code low}, {@code medium}, {@code high}) the model of the chat of {@code key} takes; empty: none. */
    public List<String> reasoningEfforts(SessionKey key) {
        return forLane(key.value(), personas.of(key)).reasoningEfforts();
    }

    /** How full the next request of the chat of {@code key} on {@code platformId} would be, with {@code history} ({@code /context}). */
    public dev.herald.agent.compress.ContextUse context(SessionKey key, String platformId, List<ChatMessage> history) {
        return context(key, platformId, history, null);
    }

    /** As above, with the remembered facts of {@code user} ({@code <platform>:<user id>}; null for none) in the system prompt. */
    public dev.herald.agent.compress.ContextUse context(SessionKey key, String platformId, List<ChatMessage> history, String user) {
        Optional<Personas.Persona> persona = personas.of(key);
        String profile = profileOf(key);
        return agents.get(profile).context(profile, history, withMemory(persona.map(Personas.Persona::systemPrompt).orElse(null), user),
                platformId);
    }

    /** The lane's /model choice, else its persona's profile, else the default. */
    private ModelAgent forLane(String sessionKey, Optional<Personas.Persona> persona) {
        return forLane(sessionKey, persona, null);
    }

    /** The lane's /model choice, else its persona's profile, else its channel's ({@code channelProfile}), else the default. */
    private ModelAgent forLane(String sessionKey, Optional<Personas.Persona> persona, String channelProfile) {
        if (sessionKey == null || agents.size() == 1) {
            return fallback;
        }
        Optional<String> chosen = choices.chosen(new SessionKey(sessionKey));
        if (chosen.isEmpty()) {
            String model = persona.map(Personas.Persona::model).orElse(channelProfile);
            if (model == null || model.equals(DEFAULT)) {
                return fallback;
            }
            ModelAgent agent = agents.get(model);
            if (agent == null) {
                log.warn("persona - personality or channel of {} names model profile '{}', which is not configured; using {}", sessionKey,
                        model, DEFAULT);
                return fallback;
            }
            return agent;
        }
        ModelAgent agent = agents.get(chosen.get());
        if (agent == null) {
            log.warn("model - {} chose model profile '{}', which is no longer configured; using {}", sessionKey, chosen.get(), DEFAULT);
            return fallback;
        }
        return agent;
    }

    @Override
    public List<ModelOption> models() {
        return options;
    }

    /** A side answer with the model and persona the lane's turns use. */
    @Override
    public Optional<String> aside(String sessionKey, List<ChatMessage> history, String question, Interrupt interrupt) {
        Optional<Personas.Persona> persona = sessionKey == null ? Optional.empty() : personas.of(new SessionKey(sessionKey));
        return Optional.of(forLane(sessionKey, persona).aside(history, question, interrupt,
                persona.map(Personas.Persona::systemPrompt).orElse(null)));
    }

    @Override
    public Optional<Compaction> compact(List<ChatMessage> history, Interrupt interrupt) {
        return fallback.compact(history, interrupt);
    }

    /** With the chat's own model profile, the summary keeping above all what {@code focus} names. */
    @Override
    public Optional<Compaction> compact(String sessionKey, List<ChatMessage> history, String focus, Interrupt interrupt) {
        ModelAgent agent = sessionKey == null ? fallback : forLane(sessionKey, personas.of(new SessionKey(sessionKey)));
        return agent.compact(history, focus == null ? "" : focus, interrupt);
    }

    @Override
    public String describe() {
        return fallback.describe() + (agents.size() > 1 ? " (+" + (agents.size() - 1) + " more model profiles: "
                + String.join(", ", agents.keySet().stream().skip(1).toList()) + ")" : "");
    }

    @Override
    public String modelName() {
        return fallback.modelName();
    }
}
