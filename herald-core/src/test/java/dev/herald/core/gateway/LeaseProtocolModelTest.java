package dev.herald.core.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An exhaustive check of the session-lease protocol over every interleaving of a few nodes and messages of one session:
 * from every reachable state every message can still be run (no turn is lost or stuck), at most one turn of the session
 * runs at a time, and the lease never moves away from a live node while it runs a turn of the session.
 *
 * <p>The model is the protocol, not the code: each action is one store transaction or one step of a node, named after
 * the code it stands for.
 * <ul>
 *   <li>{@code arrive}: a message reaches a node (the receiver, or another live node when it is down) and is stored
 *       RECEIVED in its lane ({@code Inbound}).</li>
 *   <li>{@code start}: the lane's head turn tries to START: the lease is taken where it is free, the node's own, or its
 *       holder is gone, and no turn of the session runs ({@code Leases.take} in {@code JdbcTurnStore}'s START); a refusal
 *       sends the turn to {@code wait} ({@code TurnRunner.attempt} returns LOST).</li>
 *   <li>{@code wait}: {@code TurnRunner.waitForTheLane}: a turn no longer waiting leaves the lane; one another node may
 *       run is left for the lease holder; any other takes the lease from an idle or gone holder and tries the start
 *       again.</li>
 *   <li>{@code finish}: the running turn ends; {@code crash}: a node dies (kill -9), its lane with it;
 *       {@code takeover}: a live node ends a dead node's running turn (resumed: done, abstracted) ({@code Takeover});
 *       {@code pickup}: a node with an idle lane claims a waiting turn it may run ({@code Pickup}, the SQL of
 *       {@code JdbcTurnStore.waitingSql}); {@code watchdog}: a node dispatches its own waiting turn that no lane holds
 *       ({@code Watchdog.sweepWaiting}).</li>
 * </ul>
 * Two earlier forms of the protocol are checked too, to show that the check finds what went wrong: a take of the lease
 * from an idle holder made of a read and a later write (a read-committed UPDATE that waited for a row lock and re-judged
 * the holder's turns as they were before), and a turn given up after a refused start while this node held the lease.
 * The first moves the lease from a holder that started a turn in between; the second leaves a message waiting for good
 * after a crash. Each is printed as the trace that leads to it. Setups: two or three nodes, two or three messages, some
 * bound to their receiver, at most one crash.
 */
class LeaseProtocolModelTest {

    /** Which form of the protocol is checked. */
    record Protocol(boolean atomicTake, boolean retryAfterLost, boolean watchdog) {
        static final Protocol NOW = new Protocol(true, true, true);
    }

    /** The messages: who receives each, and whether its reply goes back over a request its receiver holds (API, web chat). */
    record Setup(int nodes, int[] receiver, boolean[] bound, int crashes) {
        int turns() {
            return receiver.length;
        }
    }

    static final int RECEIVED = 0;
    static final int RUNNING = 1;
    static final int DONE = 2;
    static final int NOT_ARRIVED = 3;

    static final int IDLE = 0;
    static final int TRY = 1;
    static final int WAIT = 2;
    static final int TAKING = 3;
    static final int RUN = 4;

    /** One state of the whole system; immutable, compared by value. */
    static final class State {
        final boolean[] alive;
        final int holder;
        final int[] turn;
        final int[] owner;
        final int[][] lane;
        final int[] pc;
        final int crashesLeft;

        State(boolean[] alive, int holder, int[] turn, int[] owner, int[][] lane, int[] pc, int crashesLeft) {
            this.alive = alive;
            this.holder = holder;
            this.turn = turn;
            this.owner = owner;
            this.lane = lane;
            this.pc = pc;
            this.crashesLeft = crashesLeft;
        }

        Builder edit() {
            return new Builder(this);
        }

        boolean busy(int node) {
            for (int t = 0; t < turn.length; t++) {
                if (turn[t] == RUNNING && owner[t] == node) {
                    return true;
                }
            }
            return false;
        }

        boolean anyRunning() {
            return Arrays.stream(turn).anyMatch(s -> s == RUNNING);
        }

        boolean inLane(int node, int t) {
            return Arrays.stream(lane[node]).anyMatch(x -> x == t);
        }

        boolean done() {
            return Arrays.stream(turn).allMatch(s -> s == DONE);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof State s && Arrays.equals(alive, s.alive) && holder == s.holder && Arrays.equals(turn, s.turn)
                    && Arrays.equals(owner, s.owner) && Arrays.deepEquals(lane, s.lane) && Arrays.equals(pc, s.pc)
                    && crashesLeft == s.crashesLeft;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(new int[] {Arrays.hashCode(alive), holder, Arrays.hashCode(turn), Arrays.hashCode(owner),
                    Arrays.deepHashCode(lane), Arrays.hashCode(pc), crashesLeft});
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("lease ").append(holder < 0 ? "-" : "n" + holder).append(" | turns");
            for (int t = 0; t < turn.length; t++) {
                sb.append(" t").append(t).append('=').append(new String[] {"received", "running", "done", "-"}[turn[t]])
                        .append(owner[t] < 0 ? "" : "@n" + owner[t]);
            }
            for (int n = 0; n < alive.length; n++) {
                sb.append(" | n").append(n).append(alive[n] ? "" : " gone").append(" lane ").append(Arrays.toString(lane[n]))
                        .append(' ').append(new String[] {"idle", "try", "wait", "taking", "runs"}[pc[n]]);
            }
            return sb.toString();
        }
    }

    /** A copy being changed into the next state. */
    static final class Builder {
        final boolean[] alive;
        int holder;
        final int[] turn;
        final int[] owner;
        final int[][] lane;
        final int[] pc;
        int crashesLeft;

        Builder(State s) {
            alive = s.alive.clone();
            holder = s.holder;
            turn = s.turn.clone();
            owner = s.owner.clone();
            lane = new int[s.lane.length][];
            for (int i = 0; i < lane.length; i++) {
                lane[i] = s.lane[i].clone();
            }
            pc = s.pc.clone();
            crashesLeft = s.crashesLeft;
        }

        Builder pop(int node) {
            lane[node] = Arrays.copyOfRange(lane[node], 1, lane[node].length);
            pc[node] = IDLE;
            return this;
        }

        Builder enqueue(int node, int t) {
            int[] l = Arrays.copyOf(lane[node], lane[node].length + 1);
            l[l.length - 1] = t;
            lane[node] = l;
            return this;
        }

        State build() {
            return new State(alive, holder, turn, owner, lane, pc, crashesLeft);
        }
    }

    record Step(String action, State to) {
    }

    /** What the exhaustive search found. */
    record Result(int states, List<String> problems) {
    }

    /** The protocol as a state machine of {@link State}s, searched breadth first. */
    static final class Model {
        private final Setup setup;
        private final Protocol protocol;

        Model(Setup setup, Protocol protocol) {
            this.setup = setup;
            this.protocol = protocol;
        }

        State initial() {
            int n = setup.nodes();
            int t = setup.turns();
            int[] turn = new int[t];
            int[] owner = new int[t];
            Arrays.fill(turn, NOT_ARRIVED);
            Arrays.fill(owner, -1);
            boolean[] alive = new boolean[n];
            Arrays.fill(alive, true);
            return new State(alive, -1, turn, owner, new int[n][0], new int[n], setup.crashes());
        }

        /** Every action enabled in {@code s}, with the state it leads to. */
        List<Step> next(State s) {
            List<Step> out = new ArrayList<>();
            int nodes = s.alive.length;
            for (int t = 0; t < s.turn.length; t++) {
                if (s.turn[t] == NOT_ARRIVED) {
                    int at = s.alive[setup.receiver()[t]] ? setup.receiver()[t] : firstAlive(s);
                    if (at >= 0) {
                        Builder b = s.edit();
                        b.turn[t] = RECEIVED;
                        b.owner[t] = at;
                        out.add(new Step("arrive t" + t + " at n" + at, b.enqueue(at, t).build()));
                    }
                }
            }
            for (int n = 0; n < nodes; n++) {
                if (!s.alive[n]) {
                    continue;
                }
                if (s.lane[n].length > 0) {
                    lane(s, n, s.lane[n][0], out);
                }
                if (s.crashesLeft > 0) {
                    Builder b = s.edit();
                    b.alive[n] = false;
                    b.lane[n] = new int[0];
                    b.pc[n] = IDLE;
                    b.crashesLeft--;
                    out.add(new Step("crash n" + n, b.build()));
                }
                for (int t = 0; t < s.turn.length; t++) {
                    if (s.turn[t] == RUNNING && !s.alive[s.owner[t]]) {
                        Builder b = s.edit();
                        b.turn[t] = DONE;
                        out.add(new Step("takeover by n" + n + " of t" + t, b.build()));
                    }
                    if (s.turn[t] == RECEIVED && s.lane[n].length == 0 && mayPickUp(s, n, t)) {
                        Builder b = s.edit();
                        b.owner[t] = n;
                        out.add(new Step("pickup by n" + n + " of t" + t, b.enqueue(n, t).build()));
                    }
                    if (protocol.watchdog() && s.turn[t] == RECEIVED && s.owner[t] == n && !s.inLane(n, t)) {
                        out.add(new Step("watchdog of n" + n + " dispatches t" + t, s.edit().enqueue(n, t).build()));
                    }
                }
            }
            return out;
        }

        /** The waiting turns {@code Pickup} may claim for node {@code n} (JdbcTurnStore.waitingSql; the grace has passed). */
        private boolean mayPickUp(State s, int n, int t) {
            boolean leaseKeptByOther = s.holder >= 0 && s.holder != n && s.alive[s.holder];
            boolean receiverGone = !s.alive[s.owner[t]];
            return !leaseKeptByOther && (receiverGone || !setup.bound()[t]);
        }

        /** The step node {@code n}'s lane takes for its head turn {@code t}. */
        private void lane(State s, int n, int t, List<Step> out) {
            switch (s.pc[n]) {
                case IDLE, TRY -> {
                    if (s.turn[t] != RECEIVED) {
                        out.add(new Step("n" + n + ": t" + t + " no longer waits", s.edit().pop(n).build()));
                        return;
                    }
                    boolean canTake = s.holder < 0 || s.holder == n || !s.alive[s.holder];
                    if (canTake && !s.anyRunning()) {
                        Builder b = s.edit();
                        b.turn[t] = RUNNING;
                        b.owner[t] = n;
                        b.holder = n;
                        b.pc[n] = RUN;
                        out.add(new Step("n" + n + " starts t" + t, b.build()));
                        return;
                    }
                    Builder b = s.edit();
                    boolean heldElsewhere = s.holder >= 0 && s.holder != n;
                    if (!protocol.retryAfterLost() && !heldElsewhere) {
                        out.add(new Step("n" + n + ": start of t" + t + " refused; given up", b.pop(n).build()));
                        return;
                    }
                    b.pc[n] = WAIT;
                    out.add(new Step("n" + n + ": start of t" + t + " refused", b.build()));
                }
                case WAIT -> {
                    if (s.turn[t] != RECEIVED) {
                        out.add(new Step("n" + n + ": t" + t + " no longer waits", s.edit().pop(n).build()));
                        return;
                    }
                    boolean heldElsewhere = s.holder >= 0 && s.holder != n;
                    if (heldElsewhere && !setup.bound()[t]) {
                        out.add(new Step("n" + n + ": t" + t + " left for the holder n" + s.holder, s.edit().pop(n).build()));
                        return;
                    }
                    if (!heldElsewhere) {
                        Builder b = s.edit();
                        b.pc[n] = TRY;
                        out.add(new Step("n" + n + ": tries t" + t + " again", b.build()));
                        return;
                    }
                    if (!s.alive[s.holder] || !s.busy(s.holder)) {
                        Builder b = s.edit();
                        if (protocol.atomicTake()) {
                            b.holder = n;
                            b.pc[n] = TRY;
                            out.add(new Step("n" + n + " takes the lease from idle n" + s.holder, b.build()));
                        } else {
                            b.pc[n] = TAKING;
                            out.add(new Step("n" + n + " reads n" + s.holder + " idle", b.build()));
                        }
                    }
                }
                case TAKING -> {
                    Builder b = s.edit();
                    b.holder = n; // the write judged by what the read saw
                    b.pc[n] = TRY;
                    out.add(new Step("n" + n + " writes the lease", b.build()));
                }
                case RUN -> {
                    Builder b = s.edit();
                    b.turn[t] = DONE;
                    out.add(new Step("n" + n + " finishes t" + t, b.pop(n).build()));
                }
                default -> throw new IllegalStateException("pc " + s.pc[n]);
            }
        }

        private static int firstAlive(State s) {
            for (int n = 0; n < s.alive.length; n++) {
                if (s.alive[n]) {
                    return n;
                }
            }
            return -1;
        }

        Result check() {
            State start = initial();
            Map<State, Step> parent = new HashMap<>();
            Map<State, List<State>> into = new HashMap<>();
            ArrayDeque<State> queue = new ArrayDeque<>(List.of(start));
            Set<State> seen = new HashSet<>(List.of(start));
            List<String> problems = new ArrayList<>();
            List<State> goals = new ArrayList<>();
            while (!queue.isEmpty()) {
                State s = queue.poll();
                if (s.done()) {
                    goals.add(s);
                }
                for (Step step : next(s)) {
                    State to = step.to();
                    long running = Arrays.stream(to.turn).filter(x -> x == RUNNING).count();
                    if (running > 1 && problems.size() < 3) {
                        problems.add("two turns of the session run at once after: " + trace(parent, s, step));
                    }
                    if (s.holder >= 0 && s.alive[s.holder] && s.busy(s.holder) && to.holder != s.holder && problems.size() < 3) {
                        problems.add("the lease moved while its holder ran a turn: " + trace(parent, s, step));
                    }
                    into.computeIfAbsent(to, k -> new ArrayList<>()).add(s);
                    if (seen.add(to)) {
                        parent.put(to, new Step(step.action(), s));
                        queue.add(to);
                    }
                }
            }
            Set<State> canFinish = new HashSet<>(goals);
            ArrayDeque<State> back = new ArrayDeque<>(goals);
            while (!back.isEmpty()) {
                for (State from : into.getOrDefault(back.poll(), List.of())) {
                    if (canFinish.add(from)) {
                        back.add(from);
                    }
                }
            }
            Optional<State> stuck = seen.stream().filter(s -> !canFinish.contains(s))
                    .min(java.util.Comparator.comparingInt(s -> depth(parent, s)));
            stuck.ifPresent(s -> problems.add("a message can never be run from: " + s + "\n  reached by: " + trace(parent, s, null)));
            return new Result(seen.size(), problems);
        }

        private static int depth(Map<State, Step> parent, State s) {
            int d = 0;
            for (Step p = parent.get(s); p != null; p = parent.get(p.to())) {
                d++;
            }
            return d;
        }

        private static String trace(Map<State, Step> parent, State s, Step last) {
            List<String> steps = new ArrayList<>();
            if (last != null) {
                steps.add(last.action());
            }
            for (Step p = parent.get(s); p != null; p = parent.get(p.to())) {
                steps.add(p.action());
            }
            java.util.Collections.reverse(steps);
            return String.join(" -> ", steps);
        }
    }

    static Result check(Setup setup, Protocol protocol) {
        return new Model(setup, protocol).check();
    }

    static List<Setup> setups() {
        return List.of(
                new Setup(2, new int[] {0, 1}, new boolean[] {true, true}, 0),
                new Setup(2, new int[] {0, 1, 0}, new boolean[] {true, true, true}, 1),
                new Setup(3, new int[] {0, 1, 2}, new boolean[] {true, true, true}, 1),
                new Setup(3, new int[] {0, 1, 2}, new boolean[] {true, false, true}, 1),
                new Setup(2, new int[] {0, 1, 1}, new boolean[] {false, false, true}, 1),
                new Setup(3, new int[] {0, 1, 1}, new boolean[] {true, true, false}, 0));
    }

    @Test
    void everyInterleaving_ofMessagesOfOneSessionOnSeveralNodes_withACrash_runsEveryMessage_oneAtATime() {
        int states = 0;
        for (Map.Entry<Setup, Result> e : all(Protocol.NOW).entrySet()) {
            Setup s = e.getKey();
            states += e.getValue().states();
            assertThat(e.getValue().problems()).as("%d nodes, receivers %s, bound %s, %d crash(es)", s.nodes(),
                    Arrays.toString(s.receiver()), Arrays.toString(s.bound()), s.crashes()).isEmpty();
        }
        System.out.println("LeaseProtocolModelTest: " + setups().size() + " setups, " + states + " states, no lost or stuck message");
    }

    /** Every setup with {@code protocol}, and the problems each found. */
    private static Map<Setup, Result> all(Protocol protocol) {
        Map<Setup, Result> out = new java.util.LinkedHashMap<>();
        for (Setup s : setups()) {
            out.put(s, check(s, protocol));
        }
        return out;
    }

    private static List<String> problems(Map<Setup, Result> results) {
        return results.values().stream().flatMap(r -> r.problems().stream()).toList();
    }

    @Test
    void aTakeMadeOfAReadAndALaterWrite_movesTheLeaseFromAHolderThatStartedATurnInBetween() {
        List<String> found = problems(all(new Protocol(false, true, true)));
        System.out.println("LeaseProtocolModelTest, a take of a read and a later write:\n  " + found.get(0));
        assertThat(found).anyMatch(p -> p.startsWith("the lease moved while its holder ran a turn"));
    }

    @Test
    void aTurnGivenUpAfterARefusedStart_isLeftWaitingForGood_whenItsNodeTookTheLeaseFromADeadNodeWhoseTurnWasNotYetTakenOver() {
        List<String> found = problems(all(new Protocol(true, false, false)));
        System.out.println("LeaseProtocolModelTest, a turn given up after a refused start:\n  " + found.get(0));
        assertThat(found).anyMatch(p -> p.startsWith("a message can never be run"));
    }

    @Test
    void eitherTheRetryOrTheWatchdogAlone_bringsEveryMessageThrough() {
        assertThat(problems(all(new Protocol(true, true, false)))).as("the retry without the watchdog").isEmpty();
        assertThat(problems(all(new Protocol(true, false, true)))).as("the watchdog without the retry").isEmpty();
    }
}
