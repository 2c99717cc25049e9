package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnOutcome;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spec A: a finished turn clears resume_pending only when it succeeded. */
class A_TurnOutcomeTest {
    @TempDir
    Path dir;
    Harness h;

    @BeforeEach
    void setUp() {
        h = new Harness(dir).platform("telegram", true);
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    @Test
    void A1_onlyAFinalOrCompletedTurnClearsResumePending() {
        List<TurnOutcome> keep = List.of(new TurnOutcome.Interrupted("stop"), new TurnOutcome.NotCompleted("limit", null),
                new TurnOutcome.Failed("gave up"), new TurnOutcome.Partial("half", "broke"), new TurnOutcome.Errored("boom"));
        List<TurnOutcome> clear = List.of(new TurnOutcome.Final("done"), new TurnOutcome.Completed());
        assertThat(keep).noneMatch(TurnOutcome::clearsResumePending);
        assertThat(clear).allMatch(TurnOutcome::clearsResumePending);

        h.start();
        int n = 0;
        for (TurnOutcome o : keep) {
            SessionSource s = Harness.dm("telegram", "keep-" + n++, "u1");
            assertThat(resumePendingAfterTurnEndingWith(s, o)).as("after %s", o.kind()).isTrue();
        }
        for (TurnOutcome o : clear) {
            SessionSource s = Harness.dm("telegram", "clear-" + n++, "u1");
            assertThat(resumePendingAfterTurnEndingWith(s, o)).as("after %s", o.kind()).isFalse();
        }
    }

    private boolean resumePendingAfterTurnEndingWith(SessionSource s, TurnOutcome outcome) {
        h.storage.sessions().getOrCreate(h.key(s), s);
        h.storage.sessions().markResumePending(h.key(s));
        int before = h.agent.calls().size();
        h.agent.outcome(outcome);
        h.loopback("telegram").say(s, "continue please");
        h.agent.awaitCalls(before + 1, Harness.WAIT);
        awaitTurnSettled();
        return h.entry(s).resumePending();
    }

    private void awaitTurnSettled() {
        long deadline = System.nanoTime() + Harness.WAIT.toNanos();
        while (h.gateway.status().claimedLanes() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(h.gateway.status().claimedLanes()).isZero();
    }
}
