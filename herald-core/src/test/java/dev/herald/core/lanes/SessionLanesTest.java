package dev.herald.core.lanes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SessionLanesTest {
    final SessionKey key = new SessionKey("agent:main:loopback:dm:1");
    final SessionSource src = SessionSource.dm(Platform.of("loopback"), "1", "u1");

    TurnRecord turn(long id) {
        return new TurnRecord(id, key, "e" + id, src, "t" + id, null, null, MessageEvent.Origin.USER, TurnState.RECEIVED,
                null, null, null, null, Instant.EPOCH, Instant.EPOCH);
    }

    @Test
    void submit_firstRunsNowLaterOnesQueueInOrder() {
        SessionLanes lanes = new SessionLanes();
        assertThat(lanes.submit(key, turn(1))).isInstanceOf(SessionLanes.Submission.RunNow.class);
        assertThat(lanes.submit(key, turn(2))).isInstanceOf(SessionLanes.Submission.Queued.class);
        assertThat(lanes.submit(key, turn(3))).isInstanceOf(SessionLanes.Submission.Queued.class);

        assertThat(lanes.nextOrRelease(key)).get().extracting(TurnRecord::id).isEqualTo(2L);
        assertThat(lanes.nextOrRelease(key)).get().extracting(TurnRecord::id).isEqualTo(3L);
        assertThat(lanes.nextOrRelease(key)).isEmpty();
        assertThat(lanes.isClaimed(key)).isFalse();
    }

    @Test
    void tryClaim_isWonByExactlyOneOfManyRacers() throws Exception {
        for (int round = 0; round < 50; round++) {
            SessionLanes lanes = new SessionLanes();
            AtomicInteger winners = new AtomicInteger();
            AtomicInteger queued = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int n = i;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (n % 2 == 0 ? lanes.tryClaim(key) : lanes.submit(key, turn(n)) instanceof SessionLanes.Submission.RunNow) {
                        winners.incrementAndGet();
                    } else if (n % 2 == 1) {
                        queued.incrementAndGet();
                    }
                }));
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(winners.get()).isEqualTo(1);
            assertThat(lanes.waiting(key)).isEqualTo(queued.get());
        }
    }
}
