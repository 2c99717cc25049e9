package dev.herald.core.turn;

import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import java.util.List;

/**
 * A RUNNING turn to end as cut off, as the continuity rules decided: its lane is counted for the stuck-loop
 * rule and, when {@code mark} is not null, marked resume-pending with that reason unless the lane is already
 * resume-pending or suspended (spec B5, G2, G3).
 */
public record CutOff(RunningTurn turn, ResumeReason mark) {

    /** What {@link TurnStore#interrupt} did: the turns it ended (those still RUNNING) and the lanes it marked. */
    public record Result(List<RunningTurn> interrupted, List<SessionKey> marked) {
        public Result {
            interrupted = List.copyOf(interrupted);
            marked = List.copyOf(marked);
        }
    }
}
