package dev.herald.agent.skill;

import dev.herald.agent.tool.Texts;
import dev.herald.core.UserErrors;
import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /skills} lists the skills; {@code /<skill name> [request]} runs one: the command becomes a turn of the chat
 * whose message holds the skill's instructions and the request, admitted like any message the user sends (its busy
 * policy, its attachments, its place in the lane). The turn takes over the command's platform message id, so a
 * platform delivering the command again is a duplicate, not a second run. A skill's name never shadows a command:
 * the gateway asks this extension only about names no command has ({@link #answers}), and an unknown name still gets
 * "Unknown command".
 */
public final class SkillCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(SkillCommand.class);
    /** The most characters of a description in /skills. */
    static final int DESCRIPTION_IN_LIST = 200;

    private final Skills skills;
    private volatile Function<MessageEvent, Admission> gateway;

    public SkillCommand(Skills skills) {
        this.skills = Objects.requireNonNull(skills, "skills");
    }

    /** Where a skill's turn is admitted: the gateway's {@code accept}, known once the gateway is built. */
    public SkillCommand attach(Function<MessageEvent, Admission> accept) {
        this.gateway = Objects.requireNonNull(accept, "accept");
        return this;
    }

    @Override
    public String name() {
        return "skills";
    }

    @Override
    public String help() {
        return "/skills - the agent's skills; /<skill name> [request] runs one";
    }

    @Override
    public boolean answers(String command) {
        return command.equals(name()) || skills.find(command).isPresent();
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String command = event.command();
        if (command.equals(name())) {
            return list();
        }
        java.util.Optional<Skill> skill = skills.find(command); // gone since answers() was asked: removed from disk just now
        return skill.isPresent() ? run(skill.get(), event, key) : "Unknown command /" + command + ". Send /help for the list.";
    }

    private String list() {
        List<Skill> all = skills.list();
        if (all.isEmpty()) {
            return "No skills yet. A skill is a folder with a SKILL.md in the skills folder of Herald's home.";
        }
        StringBuilder sb = new StringBuilder("Skills:");
        all.forEach(s -> sb.append("\n/").append(s.name()).append(" - ").append(Texts.line(s.description(), DESCRIPTION_IN_LIST)));
        return sb.append("\nRun one with /<name> and what you want; the agent also uses them by itself.").toString();
    }

    /** Admits the skill's turn; null (the turn answers) when it was taken. */
    private String run(Skill skill, MessageEvent event, SessionKey key) {
        Function<MessageEvent, Admission> accept = gateway;
        if (accept == null) {
            return "Skills cannot be run yet; try again in a moment.";
        }
        MessageEvent turn = new MessageEvent(EventIds.next(), event.source(), message(skill, event.commandArgs()), event.messageId(),
                event.replyToMessageId(), event.media(), event.origin(), event.receivedAt());
        Admission admission = accept.apply(turn);
        log.info("skills - /{} on {}: {}", skill.name(), key, admission.name().toLowerCase(java.util.Locale.ROOT));
        return switch (admission) {
            case ACCEPTED, DUPLICATE, ANSWERED -> null;
            case REJECTED_STOPPING -> "The gateway is stopping; send /" + skill.name() + " again once it is back.";
            case REJECTED_UNAVAILABLE -> UserErrors.storeUnavailable();
            case REFUSED -> "The skill could not be run.";
        };
    }

    /** What the model reads: the skill's instructions, where its files are, and the user's request. */
    static String message(Skill skill, String request) {
        return "Use the skill \"" + skill.name() + "\" (" + Texts.line(skill.description(), DESCRIPTION_IN_LIST) + ") for this. "
                + "Its instructions follow; files beside them can be read with the skill tool (action \"read\").\n\n"
                + "<skill name=\"" + skill.name() + "\">\n" + skill.body() + "\n</skill>\n\n"
                + (request.isBlank() ? "Request: none given; do what the skill describes." : "Request: " + request);
    }
}
