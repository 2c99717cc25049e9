package dev.herald.core.inbound;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;

/**
 * A chat command the gateway does not answer itself, added by a capability that owns its own state
 * (/schedule). It is answered inline like the gateway's commands: after authorization, never behind a
 * running turn, never as a turn.
 */
public interface CommandExtension {

    /** The command's name without the slash, lower-case ({@code schedule}). */
    String name();

    /**
     * Whether this extension also answers {@code /command} (lower-case, no slash), a name it does not know in advance
     * (a skill's, read from disk). Asked only for names neither the gateway nor an extension's {@link #name} answers, so
     * it can never shadow those; by default only {@link #name} is claimed.
     */
    default boolean answers(String command) {
        return command.equals(name());
    }

    /** One line for /help, e.g. {@code /schedule add|list|pause|resume|delete - scheduled tasks}. */
    String help();

    /**
     * The answer to {@code event} (an authorized user's command in the chat of {@code key}).
     *
     * @param admin whether the user is one of the platform's admins
     */
    String handle(MessageEvent event, SessionKey key, boolean admin);

    /** Lines /status adds about the chat of {@code event}; empty when there is nothing to say. */
    default List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        return List.of();
    }
}
