package dev.herald.core.lanes;

import dev.herald.core.session.SessionKey;
import dev.herald.core.turn.TurnRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One lane per session key: at most one turn runs per key, later turns wait in arrival order.
 *
 * <p>This class is the only place that decides who may run on a key (invariant 3). A lane exists
 * exactly while it is claimed; claiming is one atomic map operation ({@link ConcurrentHashMap#compute}),
 * so an inbound message and an automatic resume racing for the same key cannot both win. The owner
 * of a claim runs turns one after another and hands the lane back with {@link #nextOrRelease}, which
 * either gives it the next waiting turn or removes the lane, atomically, so no queued turn is ever
 * orphaned (spec F4, F5).
 */
public final class SessionLanes {

    /** What happened to a submitted turn. */
    public sealed interface Submission {
        /** The caller now owns the lane and must run the turn. */
        record RunNow() implements Submission {
        }

        /** The turn waits behind the running one; {@code running} is that turn, when one has started. */
        record Queued(int position, Optional<ActiveTurn> running) implements Submission {
        }
    }

    private static final class Lane {
        final ArrayDeque<TurnRecord> waiting = new ArrayDeque<>();
        /** Completes when the lane is handed back (its owner ran its last turn, or released it while stopping). */
        final CompletableFuture<Void> released = new CompletableFuture<>();
        volatile ActiveTurn active;
        /** The turn the owner works on now (preparing, waiting for the session, running), 0 when none. */
        volatile long current;
        /** Waiting turns that steer the running one ({@link #steer}); changed only under the map's lock for the key. */
        final java.util.Set<Long> steering = new java.util.HashSet<>();
    }

    private final ConcurrentHashMap<SessionKey, Lane> lanes = new ConcurrentHashMap<>();

    /** Claims an idle lane without a turn yet (an automatic resume claims before its turn exists). */
    public boolean tryClaim(SessionKey key) {
        boolean[] won = {false};
        lanes.computeIfAbsent(key, k -> {
            won[0] = true;
            return new Lane();
        });
        return won[0];
    }

    /** Claims the lane for {@code turn}, or queues the turn behind the lane's owner. */
    public Submission submit(SessionKey key, TurnRecord turn) {
        Submission[] result = new Submission[1];
        lanes.compute(key, (k, lane) -> {
            if (lane == null) {
                result[0] = new Submission.RunNow();
                Lane claimed = new Lane();
                claimed.current = turn.id();
                return claimed;
            }
            lane.waiting.addLast(turn);
            result[0] = new Submission.Queued(lane.waiting.size(), Optional.ofNullable(lane.active));
            return lane;
        });
        return result[0];
    }

    /** Records the turn the lane's owner works on now, before it starts (it may wait for the session first). */
    public void working(SessionKey key, long turnId) {
        Lane lane = lanes.get(key);
        if (lane != null) {
            lane.current = turnId;
        }
    }

    /** Whether a lane of this process holds the turn: works on it, or has it waiting. */
    public boolean holds(SessionKey key, long turnId) {
        boolean[] held = {false};
        lanes.computeIfPresent(key, (k, lane) -> { // under the lane's lock, as every change of its waiting turns
            held[0] = lane.current == turnId || lane.waiting.stream().anyMatch(t -> t.id() == turnId);
            return lane;
        });
        return held[0];
    }

    /** Records the turn the lane's owner is running now. */
    public void started(ActiveTurn turn) {
        lanes.computeIfPresent(turn.key(), (k, lane) -> {
            lane.active = turn;
            return lane;
        });
    }

    /**
     * The owner finished a turn: returns the next waiting turn (the owner keeps the lane and runs it),
     * or removes the lane and returns empty.
     */
    public Optional<TurnRecord> nextOrRelease(SessionKey key) {
        TurnRecord[] next = new TurnRecord[1];
        Lane[] gone = new Lane[1];
        lanes.computeIfPresent(key, (k, lane) -> {
            lane.active = null;
            lane.steering.clear(); // the turn they steered is over: they run as turns of their own
            next[0] = lane.waiting.pollFirst();
            lane.current = next[0] == null ? 0 : next[0].id();
            gone[0] = next[0] == null ? lane : null;
            return next[0] == null ? null : lane;
        });
        if (gone[0] != null) {
            gone[0].released.complete(null);
        }
        return Optional.ofNullable(next[0]);
    }

    /** Removes the lane and returns the turns that were waiting in it (they stay stored for later). */
    public List<TurnRecord> release(SessionKey key) {
        List<TurnRecord> left = new ArrayList<>();
        Lane[] gone = new Lane[1];
        lanes.computeIfPresent(key, (k, lane) -> {
            left.addAll(lane.waiting);
            gone[0] = lane;
            return null;
        });
        if (gone[0] != null) {
            gone[0].released.complete(null);
        }
        return left;
    }

    /**
     * One future per lane claimed now, each completing when that lane is handed back: what a stop waits on
     * instead of polling. Lanes claimed later are not included.
     */
    public List<CompletableFuture<Void>> releases() {
        List<CompletableFuture<Void>> out = new ArrayList<>();
        for (Lane lane : lanes.values()) {
            out.add(lane.released);
        }
        return out;
    }

    /**
     * Marks the waiting turn {@code turnId} as steering the lane's running turn, which takes it with {@link #takeSteering}
     * before its next model call; false (it stays an ordinary waiting turn) when no turn runs in the lane.
     */
    public boolean steer(SessionKey key, long turnId) {
        boolean[] marked = {false};
        lanes.computeIfPresent(key, (k, lane) -> {
            if (lane.active != null && lane.waiting.stream().anyMatch(t -> t.id() == turnId)) {
                marked[0] = lane.steering.add(turnId);
            }
            return lane;
        });
        return marked[0];
    }

    /**
     * Takes the turns that steer the running turn {@code runningTurnId} out of the waiting ones, in arrival order; empty
     * when there are none or that turn no longer runs in the lane.
     */
    public List<TurnRecord> takeSteering(SessionKey key, long runningTurnId) {
        List<TurnRecord> taken = new ArrayList<>();
        lanes.computeIfPresent(key, (k, lane) -> {
            if (lane.active == null || lane.active.turnId() != runningTurnId || lane.steering.isEmpty()) {
                return lane;
            }
            for (java.util.Iterator<TurnRecord> it = lane.waiting.iterator(); it.hasNext(); ) {
                TurnRecord t = it.next();
                if (lane.steering.remove(t.id())) {
                    taken.add(t);
                    it.remove();
                }
            }
            lane.steering.clear();
            return lane;
        });
        return taken;
    }

    /** Takes the waiting turns out of the lane (for /stop), leaving the owner and its running turn. */
    public List<TurnRecord> takeWaiting(SessionKey key) {
        List<TurnRecord> taken = new ArrayList<>();
        lanes.computeIfPresent(key, (k, lane) -> {
            taken.addAll(lane.waiting);
            lane.waiting.clear();
            lane.steering.clear();
            return lane;
        });
        return taken;
    }

    public boolean isClaimed(SessionKey key) {
        return lanes.containsKey(key);
    }

    public Optional<ActiveTurn> active(SessionKey key) {
        Lane lane = lanes.get(key);
        return lane == null ? Optional.empty() : Optional.ofNullable(lane.active);
    }

    public int waiting(SessionKey key) {
        Lane lane = lanes.get(key);
        return lane == null ? 0 : lane.waiting.size();
    }

    /** Turns running now (claims without a started turn are not running work). */
    public List<ActiveTurn> activeTurns() {
        List<ActiveTurn> out = new ArrayList<>();
        for (Lane lane : lanes.values()) {
            ActiveTurn t = lane.active;
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    public int claimedCount() {
        return lanes.size();
    }

    public int waitingCount() {
        int n = 0;
        for (Lane lane : lanes.values()) {
            n += lane.waiting.size();
        }
        return n;
    }
}
