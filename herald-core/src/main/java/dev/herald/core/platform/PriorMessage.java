package dev.herald.core.platform;

/**
 * What became of a message a platform handed in before, found by its platform message id: what a client that sends the
 * same message again (a retry after a timeout or a 503) is answered with, instead of a bare "already delivered".
 */
public sealed interface PriorMessage {

    /** It waits for its turn or its turn runs now: its answer is still to come. */
    record Pending() implements PriorMessage {
    }

    /**
     * Its turn answered; {@code reply} is the whole answer's text (empty when the turn had nothing to say), {@code files}
     * the files it sent after it, each with its {@link OutboundFile#ref} set.
     */
    record Answered(String reply, java.util.List<OutboundFile> files) implements PriorMessage {
        public Answered {
            files = files == null ? java.util.List.of() : java.util.List.copyOf(files);
        }

        /** An answer without files. */
        public Answered(String reply) {
            this(reply, java.util.List.of());
        }
    }

    /** Its turn ended without an answer to give; {@code why} is written for the user (no internals). */
    record Ended(String why) implements PriorMessage {
    }
}
