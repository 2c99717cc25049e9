package dev.herald.core.side;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.transcript.AgentHistory;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /btw <question>}: a side answer. The model is asked once, without tools, on a snapshot of the chat's transcript
 * as it stands (the running turn's messages so far included) and the question; the answer goes to the chat and nothing of
 * it is stored, so the model never sees it in a later turn and the running turn is not disturbed. One side question per
 * chat at a time.
 */
final class BtwCommand implements CommandExtension {
    private static final Logger log = LoggerFactory.getLogger(BtwCommand.class);
    /** The mark before a side answer in the chat. */
    static final String MARK = "\ud83d\udcac (aside) ";

    private final SideCommands.Parts parts;
    private final Set<SessionKey> asking = ConcurrentHashMap.newKeySet();

    BtwCommand(SideCommands.Parts parts) {
        this.parts = parts;
    }

    @Override
    public String name() {
        return "btw";
    }

    @Override
    public String help() {
        return "/btw <question> - a side answer from the conversation so far; the running turn goes on undisturbed";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String question = event.commandArgs().strip();
        if (question.isEmpty()) {
            return "Usage: /btw <question>. The answer comes from the conversation so far and is not kept in it.";
        }
        if (!asking.add(key)) {
            return "A side answer is still on its way here; ask again when it has come.";
        }
        try {
            Optional<SessionEntry> entry = parts.storage().sessions().find(key);
            List<ChatMessage> snapshot = entry.map(e -> AgentHistory.from(parts.storage().transcripts()
                    .load(parts.storage().transcripts().compressionTip(e.sessionId())))).orElse(List.of());
            Thread.ofVirtual().name("btw-" + key.value()).start(() -> answer(event, key, snapshot, question));
            return null;
        } catch (RuntimeException e) {
            asking.remove(key);
            throw e;
        }
    }

    private void answer(MessageEvent event, SessionKey key, List<ChatMessage> snapshot, String question) {
        String text;
        try {
            text = parts.agent().aside(key.value(), snapshot, question, new Interrupt())
                    .map(a -> MARK + a)
                    .orElse("Side answers (/btw) are not available with this agent.");
        } catch (RuntimeException e) {
            log.warn("gateway - /btw on {} failed: {}", key, e.toString());
            text = "Sorry, the side answer failed. Try again.";
        } finally {
            asking.remove(key);
        }
        parts.outbox().send(event.source().platform(), event.source().target(), text, MessageKind.COMMAND_RESPONSE, event.messageId(),
                event.eventId());
        log.info("gateway - /btw answered on {} from {} message(s) of its transcript; nothing recorded", key, snapshot.size());
    }
}
