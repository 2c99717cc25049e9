package dev.herald.core.inbound;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /model}: lists the model profiles and switches this chat's. The choice is durable
 * ({@link ModelChoiceStore}) and applies from the next turn on; {@code /model default} goes back to the default. Every
 * choice is stored by name, the default's too, so that it is an explicit choice that wins over a persona's model.
 * The answer names profiles and models, never an address.
 */
public final class ModelCommand {
    private static final Logger log = LoggerFactory.getLogger(ModelCommand.class);

    private final Agent agent;
    private final ModelChoiceStore choices;

    ModelCommand(Agent agent, ModelChoiceStore choices) {
        this.agent = agent;
        this.choices = choices;
    }

    String handle(SessionKey key, String args) {
        List<ModelOption> options = agent.models();
        if (options.isEmpty()) {
            return "This Herald has one model: " + agent.modelName() + ". More can be configured under models: in config.yaml.";
        }
        String wanted = args.strip();
        if (wanted.isEmpty()) {
            return list(key, options);
        }
        Optional<ModelOption> match = options.stream().filter(o -> o.name().equalsIgnoreCase(wanted)).findFirst();
        if (match.isEmpty()) {
            return "Unknown model '" + shorten(wanted) + "'. Choose one of: " + names(options) + ".";
        }
        ModelOption chosen = match.get();
        choices.choose(key, chosen.name());
        log.info("gateway - {} switched to model profile {} ({})", key, chosen.name(), chosen.model());
        return "Model for this chat: " + describe(chosen) + ". It answers from your next message on.";
    }

    private String list(SessionKey key, List<ModelOption> options) {
        String current = current(key, options);
        StringBuilder sb = new StringBuilder("Models (this chat uses ").append(current).append("):\n");
        for (ModelOption o : options) {
            sb.append(o.name().equals(current) ? "\u2713 " : "\u2022 ").append(describe(o)).append('\n');
        }
        Optional<String> stale = choices.chosen(key).filter(c -> options.stream().noneMatch(o -> o.name().equals(c)));
        stale.ifPresent(s -> sb.append("(the model chosen before, '").append(s).append("', is no longer configured)\n"));
        sb.append("Switch with /model <name>; /model ").append(options.getFirst().name()).append(" goes back to the default.");
        return sb.toString();
    }

    /** The profile this chat uses: its choice when that still exists, else the default (the first). */
    private String current(SessionKey key, List<ModelOption> options) {
        return choices.chosen(key).filter(c -> options.stream().anyMatch(o -> o.name().equals(c))).orElse(options.getFirst().name());
    }

    private static String describe(ModelOption o) {
        return o.name() + " (" + o.model() + (o.vision() ? ", sees images" : "") + ")";
    }

    private static String names(List<ModelOption> options) {
        return options.stream().map(ModelOption::name).collect(Collectors.joining(", "));
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
