package dev.herald.agent.persona;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /personality [name]}: lists the configured personas or chooses this chat's ({@code /personality default}
 * goes back to none). The choice is durable and applies from the next turn on. Choosing a persona that names a model
 * profile clears the chat's {@code /model} choice, so the persona's model answers until the chat chooses /model again.
 */
public final class PersonalityCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(PersonalityCommand.class);
    static final String NONE_CONFIGURED = "No personalities are configured here; an admin adds them under personalities: in config.yaml.";

    private final Personas personas;
    private final ModelChoiceStore models;

    public PersonalityCommand(Personas personas, ModelChoiceStore models) {
        this.personas = Objects.requireNonNull(personas, "personas");
        this.models = Objects.requireNonNull(models, "models");
    }

    @Override
    public String name() {
        return "personality";
    }

    @Override
    public String help() {
        return "/personality [name] - list the personalities, or choose this chat's (default: none)";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        if (personas.all().isEmpty()) {
            return NONE_CONFIGURED;
        }
        String wanted = event.commandArgs().strip();
        if (wanted.isEmpty()) {
            return list(key, dev.herald.core.memory.Memories.ownerOf(event.source()));
        }
        Optional<String> account = personas.accountOf(dev.herald.core.memory.Memories.ownerOf(event.source()));
        if (wanted.equalsIgnoreCase("default") || wanted.equalsIgnoreCase("none")) {
            personas.preferences().set(key, Personas.PREFERENCE, null);
            account.ifPresent(a -> personas.preferences().set(Personas.accountKey(a), Personas.PREFERENCE, null));
            log.info("persona - {} went back to no personality", key);
            return "Personality for this chat: none (the configured instructions alone). It applies from your next message on.";
        }
        Optional<Personas.Persona> match = personas.all().values().stream().filter(p -> p.name().equalsIgnoreCase(wanted)).findFirst();
        if (match.isEmpty()) {
            return "Unknown personality '" + (wanted.length() <= 40 ? wanted : wanted.substring(0, 40) + "...") + "'. Choose one of: "
                    + String.join(", ", personas.all().keySet()) + " (or default).";
        }
        Personas.Persona p = match.get();
        personas.preferences().set(key, Personas.PREFERENCE, p.name());
        // the person's choice for every chat of their account that chose none (web chat, API keys, linked chats)
        account.ifPresent(a -> personas.preferences().set(Personas.accountKey(a), Personas.PREFERENCE, p.name()));
        if (p.model() != null) {
            models.choose(key, null);
        }
        log.info("persona - {} chose personality {}", key, p.name());
        return "Personality for this chat: " + describe(p) + (account.isPresent() ? ", and for your other chats that chose none"
                : "") + ". It applies from your next message on.";
    }

    private String list(SessionKey key, String identity) {
        String current = personas.of(key, identity).map(Personas.Persona::name).orElse(null);
        StringBuilder sb = new StringBuilder("Personalities (this chat uses ").append(current == null ? "none" : current).append("):\n");
        for (Personas.Persona p : personas.all().values()) {
            sb.append(p.name().equals(current) ? "\u2713 " : "\u2022 ").append(describe(p)).append('\n');
        }
        sb.append("Choose with /personality <name>; /personality default goes back to none.");
        return sb.toString();
    }

    private static String describe(Personas.Persona p) {
        return p.name() + (p.model() == null ? "" : " (model " + p.model() + ")");
    }
}
