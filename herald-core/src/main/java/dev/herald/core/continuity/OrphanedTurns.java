package dev.herald.core.continuity;

import dev.herald.core.session.ResumeReason;
import dev.herald.core.turn.CutOff;
import dev.herald.core.turn.RunningTurn;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The continuity rule for turns that are RUNNING in the store while nothing runs them: the turns an unclean
 * stop left behind (found by the start-up sweep) and turns whose lane is gone while the gateway runs (found by
 * the watchdog). Each ends as INTERRUPTED; its lane counts one more interruption for the stuck-loop rule
 * (spec G3); and when the interruption is fresh the lane becomes resume-pending with reason
 * {@code restart_interrupted}, so it is resumed like any other cut-off turn (G2). A stale one is closed without
 * a resume. Lanes already resume-pending or suspended keep what they have (B5).
 */
public final class OrphanedTurns {
    private static final Logger log = LoggerFactory.getLogger("continuity");

    private final Turns turns;
    private final Freshness freshness;
    private final Clock clock;

    public OrphanedTurns(Turns turns, Freshness freshness, Clock clock) {
        this.turns = turns;
        this.freshness = freshness;
        this.clock = clock;
    }

    /** Ends {@code orphans} as the rule says, in one transaction; returns what was done. */
    public CutOff.Result end(List<RunningTurn> orphans, String found) {
        Instant now = clock.instant();
        List<CutOff> cutOffs = new ArrayList<>(orphans.size());
        for (RunningTurn t : orphans) {
            cutOffs.add(new CutOff(t, freshness.cutOffFresh(t, now) ? ResumeReason.RESTART_INTERRUPTED : null));
        }
        CutOff.Result result = turns.cutOff(cutOffs);
        if (!result.interrupted().isEmpty()) {
            log.info("continuity - {}: {} running turn(s) without an owner ended as interrupted, {} session(s) marked "
                    + "resume-pending (restart_interrupted), {} stale", found, result.interrupted().size(), result.marked().size(),
                    cutOffs.stream().filter(c -> c.mark() == null).count());
        }
        return result;
    }
}
