package dev.herald.core.session;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Compaction;
import dev.herald.core.transcript.Role;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptStore;
import java.time.Clock;
import java.time.Instant;

/**
 * Applies a compaction: the current transcript ends with reason {@code compression} and a child
 * continues it, starting with the summary (as a user-side note, since system rows never reach the
 * model) and the kept messages. Lookups of the lane follow the compression tip to the child.
 */
public final class Compactions {
    static final String SUMMARY_PREFIX = "[System note: The earlier conversation was summarized to fit the model's context. Summary:]\n\n";

    private final TranscriptStore transcripts;
    private final Clock clock;

    public Compactions(TranscriptStore transcripts, Clock clock) {
        this.transcripts = transcripts;
        this.clock = clock;
    }

    /** Returns the child session id. */
    public String apply(String parentSessionId, Compaction c) {
        Instant now = clock.instant();
        String child = SessionIds.newId(now);
        transcripts.continueInChild(parentSessionId, child, now);
        transcripts.append(child, new TranscriptRow(0, Role.USER, SUMMARY_PREFIX + c.summary(), java.util.List.of(), null, null, now));
        for (ChatMessage m : c.kept()) {
            transcripts.append(child, new TranscriptRow(0, m.role(), m.content(), m.toolCalls(), m.toolCallId(), m.name(), now));
        }
        return child;
    }
}
