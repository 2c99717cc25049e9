package dev.herald.core.lanes;

import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the waiting turns that are this node's to run but that no lane of it holds: messages another node received for a
 * session whose lease this node holds (handed over), and messages a node that is gone (or drained) left waiting, in
 * sessions no live node holds. The store claims them for this node in one transaction ({@link Turns#claimWaiting}); of
 * several nodes, each waiting turn goes to one. A live receiver gets {@link #GRACE} to run its own turn first, and a turn
 * whose reply goes back over a request its receiver holds open is never taken from a live receiver.
 */
public final class Pickup {
    private static final Logger log = LoggerFactory.getLogger("cluster");
    /** How long a live node that received a message has to run it before another node may. */
    static final Duration GRACE = Duration.ofSeconds(3);

    private final Turns turns;
    private final SessionLanes lanes;
    private final LaneDriver driver;
    private final PlatformRegistry platforms;
    private final Clock clock;

    public Pickup(Turns turns, SessionLanes lanes, LaneDriver driver, PlatformRegistry platforms, Clock clock) {
        this.turns = turns;
        this.lanes = lanes;
        this.driver = driver;
        this.platforms = platforms;
        this.clock = clock;
    }

    /** One round; returns how many waiting turns it dispatched. */
    public int round() {
        Set<String> bound = platforms.all().stream().filter(a -> a.capabilities().delivery().turnsRunWhereReceived()).map(a -> a.platform().id())
                .collect(Collectors.toSet());
        List<TurnRecord> waiting = turns.claimWaiting(bound, clock.instant().minus(GRACE), 200);
        if (waiting.isEmpty()) {
            return 0;
        }
        Set<SessionKey> busy = new HashSet<>();
        for (TurnRecord t : waiting) {
            if (lanes.isClaimed(t.sessionKey())) {
                busy.add(t.sessionKey()); // its lane runs here already; the turn waits for a later round
            }
        }
        int dispatched = 0;
        for (TurnRecord t : waiting) {
            if (!busy.contains(t.sessionKey()) && platforms.adapter(t.source().platform()).isPresent()) {
                driver.dispatch(t, false);
                dispatched++;
            }
        }
        if (dispatched > 0) {
            log.info("cluster - {} waiting turn(s) that another node received or left are run here", dispatched);
        }
        return dispatched;
    }
}
