package dev.herald.core.side;

import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;

/**
 * {@code /steer <text>}: adds to the running turn. The text is stored as a message of the chat and the running turn reads
 * it before its next model call, after the tool call in progress ({@link dev.herald.core.lanes.Steering}). With no turn
 * running it is simply a message, answered as any other.
 */
final class SteerCommand implements CommandExtension {
    private final SideCommands.Parts parts;

    SteerCommand(SideCommands.Parts parts) {
        this.parts = parts;
    }

    @Override
    public String name() {
        return "steer";
    }

    @Override
    public String help() {
        return "/steer <text> - add to the running turn: the model reads it after its current step";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String text = event.commandArgs().strip();
        if (text.isEmpty()) {
            return "Usage: /steer <text>. The running turn reads it after its current step; with nothing running it is sent as a message.";
        }
        MessageEvent message = new MessageEvent(EventIds.next(), event.source(), text, null, event.messageId(), event.media(),
                event.origin(), event.receivedAt());
        boolean running = parts.lanes().active(key).isPresent();
        boolean files = !event.media().isEmpty(); // the running turn has read its files already: this one waits its turn
        Admission a = running && !files ? parts.steer().apply(message) : parts.enqueue().apply(message);
        if (a != Admission.ACCEPTED) {
            return SideCommands.notTaken(a);
        }
        if (!running) {
            return null; // nothing ran: it is a message, answered as one
        }
        return files ? "Queued: a message with files runs after the current turn." : "\u21aa Steering: the model reads this after its current step.";
    }
}
