package dev.herald.core.platform;

import java.util.Optional;

/**
 * Keeps the bytes of an attachment in Herald's own store while its message is being taken, before the platform is
 * told the message arrived: the turn then reads them from there, even when the platform dropped the file meanwhile.
 * Used for voice notes ({@code voice.transcription}); other attachments stay on the platform until their turn fetches
 * them.
 */
@FunctionalInterface
public interface MediaKeeper {
    /** Keeps nothing. */
    MediaKeeper NONE = (platform, ref) -> Optional.empty();

    /**
     * The reference to store in place of {@code ref} once its bytes are kept; empty when this keeper does not keep such
     * a file, or could not (the platform then still has it, and the turn fetches it there). Never throws for a file it
     * cannot keep: a message is never refused for its attachment.
     */
    Optional<MessageEvent.MediaRef> keep(Platform platform, MessageEvent.MediaRef ref);

    /** {@code event} with each attachment this keeper kept named by its kept reference. */
    default MessageEvent keepAll(MessageEvent event) {
        if (event.media().isEmpty() || this == NONE) {
            return event;
        }
        java.util.List<MessageEvent.MediaRef> out = new java.util.ArrayList<>(event.media().size());
        boolean changed = false;
        for (MessageEvent.MediaRef ref : event.media()) {
            Optional<MessageEvent.MediaRef> kept;
            try {
                kept = keep(event.source().platform(), ref);
            } catch (RuntimeException e) {
                kept = Optional.empty();
            }
            out.add(kept.orElse(ref));
            changed |= kept.isPresent();
        }
        return !changed ? event : new MessageEvent(event.eventId(), event.source(), event.text(), event.messageId(), event.replyToMessageId(),
                java.util.List.copyOf(out), event.origin(), event.receivedAt(), event.options());
    }
}
