package dev.herald.agent;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.AgentHistory;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code /context}: how full this chat's context window is and what fills it (system prompt, tool definitions, messages,
 * tool results, attachment lines), in estimated tokens and as a share of the chat's model profile's window
 * ({@link dev.herald.agent.compress.ContextUse}). It reads the stored transcript as the next turn would; it changes
 * nothing and calls no model.
 */
public final class ContextCommand implements CommandExtension {
    private final ProfileAgent agent;
    private final Storage storage;

    public ContextCommand(ProfileAgent agent, Storage storage) {
        this.agent = Objects.requireNonNull(agent, "agent");
        this.storage = Objects.requireNonNull(storage, "storage");
    }

    @Override
    public String name() {
        return "context";
    }

    @Override
    public String help() {
        return "/context - how full this chat's context window is, and with what";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        if (!event.commandArgs().isBlank()) {
            return "Usage: /context (no arguments): how full this chat's context window is, and with what.";
        }
        Optional<SessionEntry> entry = storage.sessions().find(key);
        List<dev.herald.core.agent.ChatMessage> history = entry
                .map(e -> AgentHistory.from(storage.transcripts().load(storage.transcripts().compressionTip(e.sessionId()))))
                .orElse(List.of()); // read only: the lane's entry is healed to the compression tip by its next turn
        return agent.context(key, event.source().platform().id(), history, dev.herald.core.memory.Memories.ownerOf(event.source())).describe();
    }
}
