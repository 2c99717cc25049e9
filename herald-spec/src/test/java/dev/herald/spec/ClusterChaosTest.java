package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.inbound.GatewayState;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.postgres.PostgresStorage;
import dev.herald.store.postgres.TestDatabase;
import dev.herald.testkit.gateway.RecordingAdapter;
import dev.herald.testkit.gateway.StoreInvariants;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seeded chaos of {@link RestartChaosTest} on several nodes (issue 11): three gateways with clustering on share one
 * PostgreSQL database, each with its own node id, store pool, chat platform and chaos agent, while four users talk to
 * whichever nodes run. At random moments a random node is killed (kill -9: it writes and sends nothing more; the others
 * judge it gone when its lease runs out), stopped (and started again a round later), or restarted with a handover (the
 * new node starts, then the old one drains). Now and then time jumps two hours right after a kill, so that what the
 * dead node was running is stale when the others take it over.
 *
 * <p>Afterwards, with a node in every place and nothing left to run: every accepted message was stored and ended; no
 * turn got two final replies (the store invariants); no interruption was resumed twice; no fresh interruption is left
 * resume-pending; and no turn that was running on a node killed just before a time jump was resumed.
 *
 * <p>A few seeds run every time; a long run: {@code bin/test -pl herald-spec -am -Dtest=ClusterChaosTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dcluster.chaos.seeds=40} (seeds 1 to 40; {@code -Dcluster.chaos.seed=N} runs
 * seed N alone).
 */
class ClusterChaosTest {
    private static final int NODES = 3;
    private static final int USERS = 4;
    private static final int ROUNDS = 8;
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static final Platform CHAT = Platform.of("telegram");

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    private final ShiftedClock clock = new ShiftedClock();
    private final List<RecordingAdapter.Sent> sent = new CopyOnWriteArrayList<>();
    private final List<ChaosNode> all = new ArrayList<>();
    private final ChaosNode[] slots = new ChaosNode[NODES];
    private final Set<String> users = Set.of("u1", "u2", "u3", "u4");
    /** Turns that were RUNNING on a node killed just before a time jump: stale when taken over, never to be resumed. */
    private final Set<Long> staleAtTakeover = new HashSet<>();
    /** Turns that were RUNNING on a node when it was killed without a time jump: fresh, to be resumed once. */
    private final Set<Long> freshAtTakeover = new HashSet<>();
    /** Every model call of every node, in order; and, per fresh cut turn, how many calls there were when it was cut. */
    private final List<TurnRequest> asked = new CopyOnWriteArrayList<>();
    private final Map<Long, Integer> askedAtCut = new java.util.HashMap<>();
    private final AtomicLong messageIds = new AtomicLong();
    private final Map<String, Integer> disruptions = new TreeMap<>();
    private long seed;
    private int processes;

    static LongStream seeds() {
        Long one = Long.getLong("cluster.chaos.seed");
        return one != null ? LongStream.of(one) : LongStream.rangeClosed(1, Integer.getInteger("cluster.chaos.seeds", 3));
    }

    /** The system clock moved forward by hand: time passes, and a test can make what happened stale at once. */
    static final class ShiftedClock extends Clock {
        private volatile Duration shift = Duration.ZERO;

        void advance(Duration d) {
            shift = shift.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("a shifted clock is UTC");
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(shift);
        }
    }

    /**
     * The chaos agent of the single-node test behind a think time of up to a second (half the turns), so that kills,
     * stops and handovers find turns running.
     */
    static final class SlowChaosAgent implements Agent {
        private final Agent chaos;
        private final Random random;
        private final List<TurnRequest> asked;

        SlowChaosAgent(long seed, List<TurnRequest> asked) {
            this.chaos = new RestartChaosTest.ChaosAgent(seed);
            this.random = new Random(~seed);
            this.asked = asked;
        }

        @Override
        public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
            asked.add(request);
            int ms;
            synchronized (random) {
                ms = random.nextBoolean() ? 0 : 100 + random.nextInt(900);
            }
            CountDownLatch raised = new CountDownLatch(1);
            Runnable wake = raised::countDown;
            interrupt.onRaise(wake);
            try {
                if (raised.await(ms, TimeUnit.MILLISECONDS) || interrupt.isRaised()) {
                    return new TurnOutcome.Interrupted(interrupt.reason());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new TurnOutcome.Interrupted("thread interrupted");
            } finally {
                interrupt.forget(wake);
            }
            return chaos.runTurn(request, listener, interrupt);
        }

        @Override
        public String describe() {
            return "slow chaos agent";
        }
    }

    /** One gateway process: a node of its own on the shared database. */
    final class ChaosNode {
        final String id;
        final int process;
        final Storage storage;
        final LoopbackPlatform chat;
        final Gateway gateway;
        volatile boolean dead;
        volatile boolean flaky = true;

        ChaosNode(String id) {
            this.id = id;
            this.process = processes++;
            this.storage = PostgresStorage.open(db.options(), clock);
            this.chat = new LoopbackPlatform(CHAT, new Capabilities(true, false, false, true, false, 4096), clock);
            Random failures = new Random(seed * 31 + process);
            chat.onSend(m -> {
                if (dead) {
                    return SendResult.failed("the process was killed", true); // a dead process reaches no chat
                }
                synchronized (failures) {
                    if (flaky && failures.nextInt(10) == 0) {
                        return SendResult.failed("502 Bad Gateway", true);
                    }
                }
                String messageId = m.idempotencyKey() != null ? "msg-" + m.idempotencyKey() : "n" + process + "-" + messageIds.incrementAndGet();
                sent.add(new RecordingAdapter.Sent(CHAT, m, messageId, process));
                return SendResult.sent(messageId);
            });
            GatewaySettings settings = GatewaySettings.defaults().withDrainTimeout(Duration.ofMillis(150))
                    .withInterruptGrace(Duration.ofSeconds(2)).withStartupRestoreTimeout(Duration.ofSeconds(5))
                    .withRedeliveryInterval(Duration.ofSeconds(1))
                    .withBusyPolicy(seed % 2 == 0 ? dev.herald.core.lanes.BusyPolicy.INTERRUPT : dev.herald.core.lanes.BusyPolicy.QUEUE);
            this.gateway = Gateway.builder(storage, new SlowChaosAgent(seed * 1_000 + process, asked), allowed(), new PlatformRegistry(List.of(chat), List.of()))
                    .settings(settings)
                    .clock(clock)
                    .metrics(GatewayMetrics.NONE)
                    .cluster(new ClusterSettings(true, new NodeIdentity(id, NodeIdentity.hostName(), ProcessHandle.current().pid(), null), LEASE, null))
                    .build();
            all.add(this);
            gateway.start(Gateway.StartOptions.normal());
        }

        boolean running() {
            return !dead && gateway.status().state() == GatewayState.RUNNING;
        }

        /** As kill -9: nothing is stopped; its store closes under it, so it writes nothing more, and it sends nothing. */
        void kill() {
            dead = true;
            storage.close();
        }
    }

    private Authorizer allowed() {
        return new Authorizer() {
            @Override
            public boolean isAuthorized(SessionSource source) {
                return source.userId() != null && users.contains(source.userId());
            }

            @Override
            public boolean isAdmin(SessionSource source) {
                return isAuthorized(source);
            }
        };
    }

    @AfterEach
    void stopEverything() {
        for (ChaosNode n : all) {
            try {
                if (!n.dead) {
                    n.gateway.stop(StopKind.SHUTDOWN, false);
                    n.storage.close();
                } else {
                    n.gateway.stop(StopKind.SHUTDOWN, false); // ends its threads; its store is closed, so it writes nothing
                }
            } catch (RuntimeException e) {
                // a killed node's stop finds its store closed
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void nodesKilledStoppedAndRestartedWhileUsersTalk_loseNoMessage_answerNoTurnTwice_andResumeEachFreshInterruptionOnce(long seed)
            throws Exception {
        this.seed = seed;
        Random random = new Random(seed);
        List<SessionSource> who = new ArrayList<>();
        for (int u = 1; u <= USERS; u++) {
            who.add(Harness.dm("telegram", "chat-" + u, "u" + u));
        }
        for (int i = 0; i < NODES; i++) {
            slots[i] = new ChaosNode("n" + i + "-p0");
        }
        int accepted = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int messages = 3 + random.nextInt(8);
            for (int m = 0; m < messages; m++) {
                Optional<ChaosNode> node = randomRunning(random);
                int kind = random.nextInt(20);
                String text = kind == 0 ? "/stop" : kind == 1 ? "/new" : kind == 2 ? "/status"
                        : "r" + round + " m" + m + " " + "x".repeat(random.nextInt(40));
                SessionSource user = who.get(random.nextInt(USERS));
                if (node.isPresent() && node.get().chat.say(user, text) == Admission.ACCEPTED) {
                    accepted++;
                }
                Thread.sleep(random.nextInt(30));
            }
            Thread.sleep(random.nextInt(150));
            disrupt(random, round);
        }
        settle();
        check(accepted);
    }

    private Optional<ChaosNode> randomRunning(Random random) {
        List<ChaosNode> up = new ArrayList<>();
        for (ChaosNode n : slots) {
            if (n != null && n.running()) {
                up.add(n);
            }
        }
        return up.isEmpty() ? Optional.empty() : Optional.of(up.get(random.nextInt(up.size())));
    }

    /** One random disruption of a random place: kill, stop, or a handover restart; an empty place is filled first. */
    private void disrupt(Random random, int round) {
        int place = random.nextInt(NODES);
        ChaosNode n = slots[place];
        if (n == null || !n.running()) {
            slots[place] = new ChaosNode("n" + place + "-p" + round + "-new");
            return;
        }
        long up = java.util.Arrays.stream(slots).filter(s -> s != null && s.running()).count();
        int action = up < 2 ? 2 : random.nextInt(3);
        disruptions.merge(action == 0 ? "kill" : action == 1 ? "stop" : "handover", 1, Integer::sum);
        switch (action) {
            case 0 -> {
                Set<Long> running = n.storage.turns().running().stream().filter(t -> n.id.equals(t.ownerNode()))
                        .map(t -> t.id()).collect(Collectors.toSet());
                n.kill();
                slots[place] = null;
                if (random.nextInt(4) == 0) {
                    clock.advance(Duration.ofHours(2)); // what the dead node ran is stale by the time its lease runs out
                    staleAtTakeover.addAll(running);
                    disruptions.merge("time jump", 1, Integer::sum);
                } else {
                    freshAtTakeover.addAll(running);
                    running.forEach(id -> askedAtCut.put(id, asked.size()));
                }
            }
            case 1 -> {
                n.gateway.stop(random.nextBoolean() ? StopKind.SHUTDOWN : StopKind.RESTART, false);
                n.storage.close();
                slots[place] = null;
            }
            default -> {
                slots[place] = new ChaosNode("n" + place + "-p" + round + "-handover");
                n.gateway.stop(StopKind.HANDOVER, false);
                n.storage.close();
            }
        }
    }

    /** Fills every place with a node whose sends all succeed, then waits until nothing is left to run or deliver. */
    private void settle() throws InterruptedException {
        for (int i = 0; i < NODES; i++) {
            if (slots[i] == null || !slots[i].running()) {
                slots[i] = new ChaosNode("n" + i + "-last");
            }
            slots[i].flaky = false;
        }
        long deadline = System.nanoTime() + SETTLE.toNanos();
        List<TurnRecord> open = List.of();
        while (System.nanoTime() < deadline) {
            open = allTurns(slots[0].storage).values().stream().filter(t -> !t.state().terminal()).toList();
            boolean idle = java.util.Arrays.stream(slots).allMatch(s -> s.gateway.status().activeTurns() == 0);
            if (open.isEmpty() && idle && freshResumeMarks(slots[0].storage).isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("seed " + seed + ": not settled within " + SETTLE.toSeconds() + " s; open turns "
                + open.stream().map(t -> t.id() + ":" + t.state() + "@" + t.ownerNode()).toList() + "; fresh resume marks "
                + freshResumeMarks(slots[0].storage));
    }

    private void check(int accepted) {
        for (ChaosNode n : slots) {
            n.gateway.stop(StopKind.SHUTDOWN, false);
        }
        Storage storage = slots[0].storage;
        Map<Long, TurnRecord> turns = allTurns(storage);
        List<String> problems = new ArrayList<>(StoreInvariants.afterStop(storage, List.copyOf(sent), Set.of()));
        long stored = turns.values().stream().filter(t -> t.origin() == MessageEvent.Origin.USER).count();
        if (stored != accepted) {
            problems.add(accepted + " messages were accepted, but " + stored + " user turns are stored");
        }
        turns.values().stream().filter(t -> !t.state().terminal()).forEach(t -> problems.add("turn " + t.id() + " did not end: " + t.state()));
        Map<String, List<TurnRecord>> lanes = turns.values().stream().sorted(Comparator.comparingLong(TurnRecord::id))
                .collect(Collectors.groupingBy(t -> t.sessionKey().value(), TreeMap::new, Collectors.toList()));
        lanes.forEach((lane, list) -> problems.addAll(resumes(lane, list)));
        long resumedFresh = lanes.values().stream().mapToLong(list -> followedByResume(list, freshAtTakeover)).sum();
        long noted = freshAtTakeover.stream().filter(id -> nextCallCarriesTheNote(turns.get(id))).count();
        System.out.println("ClusterChaosTest seed " + seed + ": " + processes + " node processes, " + disruptions + ", " + accepted
                + " messages accepted, " + sent.size() + " sends; turns running at a kill: " + freshAtTakeover.size() + " fresh ("
                + resumedFresh + " resumed by a turn of their own, " + noted + " whose lane's next model call carried the interruption note), " + staleAtTakeover.size() + " before a time jump; turns "
                + turns.values().stream().collect(Collectors.groupingBy(t -> t.origin() + " " + t.state(), TreeMap::new, Collectors.counting())));
        freshResumeMarks(storage).forEach(e -> problems.add("session " + e.key().value() + " is still resume-pending (fresh, marked at "
                + e.lastResumeMarkedAt() + ") although nodes ran"));
        assertThat(problems).as("seed %d (%d processes, %d messages accepted, %d sends)", seed, processes, accepted, sent.size()).isEmpty();
    }

    /** In one lane: at most one resume per interruption, and no resume of a turn that was stale when it was taken over. */
    private List<String> resumes(String lane, List<TurnRecord> turns) {
        List<String> problems = new ArrayList<>();
        int resumesSinceInterruption = 0;
        TurnRecord previousStarted = null;
        for (TurnRecord t : turns) {
            boolean started = t.sessionId() != null;
            if (t.origin() == MessageEvent.Origin.RESUME && started) {
                resumesSinceInterruption++;
                if (resumesSinceInterruption > 1) {
                    problems.add("lane " + lane + ": one interruption resumed twice (turn " + t.id() + "); turns " + describe(turns));
                }
                if (previousStarted != null && staleAtTakeover.contains(previousStarted.id())) {
                    problems.add("lane " + lane + ": turn " + previousStarted.id() + " was stale when its node's lease ran out, yet turn "
                            + t.id() + " resumed it");
                }
            }
            if (t.state() == TurnState.INTERRUPTED || staleAtTakeover.contains(t.id())) {
                resumesSinceInterruption = 0;
            }
            if (started) {
                previousStarted = t;
            }
        }
        return problems;
    }

    /** Whether the first model call for the cut turn's lane after the cut told the model of the interruption. */
    private boolean nextCallCarriesTheNote(TurnRecord cut) {
        if (cut == null) {
            return false;
        }
        List<TurnRequest> after = asked.subList(askedAtCut.get(cut.id()), asked.size());
        return after.stream().filter(r -> cut.sessionKey().value().equals(r.sessionKey())).findFirst()
                .map(r -> r.userMessage().contains("[System note: The previous turn was interrupted")).orElse(false);
    }

    /** How many turns of {@code cut} in this lane the lane's next started turn resumed. */
    private static long followedByResume(List<TurnRecord> lane, Set<Long> cut) {
        long n = 0;
        TurnRecord previous = null;
        for (TurnRecord t : lane) {
            if (t.sessionId() == null) {
                continue;
            }
            if (previous != null && cut.contains(previous.id()) && t.origin() == MessageEvent.Origin.RESUME) {
                n++;
            }
            previous = t;
        }
        return n;
    }

    private List<SessionEntry> freshResumeMarks(Storage storage) {
        Instant freshSince = clock.instant().minus(Duration.ofHours(1));
        return storage.sessions().listResumePending(Optional.empty()).stream()
                .filter(e -> e.lastResumeMarkedAt() != null && e.lastResumeMarkedAt().isAfter(freshSince)).toList();
    }

    private static Map<Long, TurnRecord> allTurns(Storage storage) {
        Map<Long, TurnRecord> turns = new TreeMap<>();
        for (TurnState s : TurnState.values()) {
            storage.turns().inState(s, 100_000).forEach(t -> turns.put(t.id(), t));
        }
        return turns;
    }

    private static String describe(List<TurnRecord> turns) {
        return turns.stream().map(t -> t.id() + ":" + t.origin() + ":" + t.state() + ":" + t.outcome() + "@" + t.ownerNode())
                .collect(Collectors.joining(", "));
    }
}
