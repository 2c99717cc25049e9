package dev.herald.core.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The lane's side of steering: only a running turn is steered, only once, and a steer left unread runs as a turn of its own. */
class SteeringLanesTest {
    final SessionKey key = new SessionKey("agent:main:loopback:dm:1");
    final SessionSource src = SessionSource.dm(Platform.of("loopback"), "1", "u1");
    final SessionLanes lanes = new SessionLanes();

    TurnRecord turn(long id) {
        return new TurnRecord(id, key, "e" + id, src, "t" + id, null, null, MessageEvent.Origin.USER, TurnState.RECEIVED,
                null, null, null, null, Instant.EPOCH, Instant.EPOCH);
    }

    void running(long id) {
        lanes.started(new ActiveTurn(id, key, src, "e" + id, new Interrupt(), Instant.EPOCH));
    }

    @Test
    void steer_withoutARunningTurn_leavesAnOrdinaryWaitingTurn() {
        lanes.submit(key, turn(1)); // claimed, not started yet
        lanes.submit(key, turn(2));

        assertThat(lanes.steer(key, 2)).isFalse();
        assertThat(lanes.waiting(key)).isEqualTo(1);
    }

    @Test
    void takeSteering_byTheRunningTurn_takesTheSteersInOrderOnce_andLeavesOtherWaitingTurns() {
        lanes.submit(key, turn(1));
        running(1);
        lanes.submit(key, turn(2));
        lanes.submit(key, turn(3));
        lanes.submit(key, turn(4));
        assertThat(lanes.steer(key, 2)).isTrue();
        assertThat(lanes.steer(key, 4)).isTrue();

        assertThat(lanes.takeSteering(key, 99)).as("another turn id takes nothing").isEmpty();
        assertThat(lanes.takeSteering(key, 1)).extracting(TurnRecord::id).containsExactly(2L, 4L);
        assertThat(lanes.takeSteering(key, 1)).isEmpty();
        assertThat(lanes.nextOrRelease(key)).get().extracting(TurnRecord::id).isEqualTo(3L);
    }

    @Test
    void aSteerLeftUnread_whenItsTurnEnds_runsAsTheNextTurn_andDoesNotSteerIt() {
        lanes.submit(key, turn(1));
        running(1);
        lanes.submit(key, turn(2));
        lanes.steer(key, 2);

        assertThat(lanes.nextOrRelease(key)).get().extracting(TurnRecord::id).isEqualTo(2L);
        running(2);
        lanes.submit(key, turn(3));
        assertThat(lanes.takeSteering(key, 2)).isEmpty();
    }

    @Test
    void stop_takesTheSteersWithTheOtherWaitingTurns() {
        lanes.submit(key, turn(1));
        running(1);
        lanes.submit(key, turn(2));
        lanes.steer(key, 2);

        assertThat(lanes.takeWaiting(key)).extracting(TurnRecord::id).containsExactly(2L);
        assertThat(lanes.takeSteering(key, 1)).isEmpty();
    }
}
