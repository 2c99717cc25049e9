package dev.herald.core.lanes;

import dev.herald.core.agent.ChatMessage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptStore;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the messages that steer a running turn ({@code /steer}, or any message under the {@code steer} busy mode) into
 * it, before its next model call.
 *
 * <p><b>Durability.</b> A steering message is stored first as an ordinary waiting turn of the lane (so a crash before the
 * running turn reads it leaves it to run as the next turn after the restart), and marked as steering in the lane
 * ({@link SessionLanes#steer}). When the running turn takes it, it is appended to the transcript as a user row marked
 * {@value #MARK}, so a resumed turn reads it too, and then its own turn is cancelled ("steered into turn N"). A crash
 * between the two leaves both: the message is read again as a turn of its own. It is never lost.
 */
public final class Steering {
    private static final Logger log = LoggerFactory.getLogger(Steering.class);
    /** What begins a steering message in the transcript and for the model. */
    public static final String MARK = "[steer] ";

    private final SessionLanes lanes;
    private final TranscriptStore transcripts;
    private final Turns turns;
    private final Clock clock;

    public Steering(SessionLanes lanes, TranscriptStore transcripts, Turns turns, Clock clock) {
        this.lanes = lanes;
        this.transcripts = transcripts;
        this.turns = turns;
        this.clock = clock;
    }

    /** The steering messages for {@code running} since the last call, each stored in {@code sessionId} before it is returned. */
    public List<ChatMessage> take(TurnRecord running, String sessionId) {
        List<TurnRecord> taken = lanes.takeSteering(running.sessionKey(), running.id());
        List<ChatMessage> out = new ArrayList<>(taken.size());
        for (TurnRecord t : taken) {
            TranscriptRow row = transcripts.append(sessionId, TranscriptRow.user(MARK + t.text(), clock.instant()));
            turns.cancel(t.id(), "steered into turn " + running.id());
            log.info("gateway - turn {} of {} steered into the running turn {} ({} characters)", t.id(), running.sessionKey(),
                    running.id(), t.text().length());
            out.add(ChatMessage.user(row.content()));
        }
        return out;
    }
}
