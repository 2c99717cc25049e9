package dev.herald.agent;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /reasoning [low|medium|high|off]}: shows or sets how hard this chat's model thinks before it answers, sent as
 * {@code reasoning_effort} (OpenAI-compatible chat completions). The choice is a chat preference ({@value #PREFERENCE}),
 * kept across {@code /new}, and applies from the next message on. Only a model profile that lists efforts in
 * {@code reasoning_efforts} takes one: elsewhere the command is refused, and a stored choice is not sent (a chat that
 * switches {@code /model} to such a profile keeps its choice for when it switches back).
 */
public final class ReasoningCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(ReasoningCommand.class);
    /** The chat preference's name; its value is the effort, no row means off. */
    public static final String PREFERENCE = "reasoning";

    private final ProfileAgent agent;
    private final ChatPreferences preferences;

    public ReasoningCommand(ProfileAgent agent, ChatPreferences preferences) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.preferences = Objects.requireNonNull(preferences, "preferences");
    }

    /** The effort the chat of {@code key} chose, if any (a value this version does not know counts as none). */
    static Optional<String> chosen(ChatPreferences preferences, SessionKey key) {
        return preferences.get(key, PREFERENCE).filter(dev.herald.agent.model.ModelSettings.EFFORTS::contains);
    }

    @Override
    public String name() {
        return "reasoning";
    }

    @Override
    public String help() {
        return "/reasoning [low|medium|high|off] - how hard this chat's model thinks before answering, where the model takes it";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String profile = agent.profileOf(key);
        List<String> efforts = agent.reasoningEfforts(key);
        String args = event.commandArgs().strip().toLowerCase(Locale.ROOT);
        if (args.equals("off")) { // always: a choice kept from another model can be cleared anywhere
            preferences.set(key, PREFERENCE, null);
            log.info("agent - {} turned /reasoning off", key);
            return "Reasoning in this chat: off (the model's own default), from your next message on.";
        }
        if (efforts.isEmpty()) {
            return "The model of this chat (" + profile + ", " + agent.modelOf(profile) + ") takes no reasoning effort. An operator can "
                    + "list the efforts it takes under reasoning_efforts in its model profile; /model shows the others.";
        }
        Optional<String> current = chosen(preferences, key);
        if (args.isEmpty()) {
            String unsent = current.filter(e -> !efforts.contains(e)).map(e -> " (this model takes no '" + e + "', so none is sent)")
                    .orElse("");
            return "Reasoning in this chat: " + current.orElse("off") + (current.isEmpty() ? " (the model's own default)" : unsent)
                    + ". The model (" + profile + ") takes " + String.join(", ", efforts) + "; change it with /reasoning "
                    + String.join("|", efforts) + "|off.";
        }
        if (!efforts.contains(args)) {
            String shown = args.length() <= 20 ? args : args.substring(0, 20) + "...";
            return "The model of this chat (" + profile + ") takes no reasoning effort '" + shown + "'. Use /reasoning "
                    + String.join(", ", efforts) + " or off.";
        }
        preferences.set(key, PREFERENCE, args);
        log.info("agent - {} chose /reasoning {}", key, args);
        return "Reasoning in this chat: " + args + ", from your next message on.";
    }

    @Override
    public List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        return chosen(preferences, key).map(e -> List.of("Reasoning: " + e)).orElse(List.of());
    }
}
