package dev.herald.core.gateway;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.Membership;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.continuity.ResumeMarks;
import dev.herald.core.inbound.Commands;
import dev.herald.core.inbound.GatewayControl;
import dev.herald.core.inbound.GatewayState;
import dev.herald.core.inbound.GatewayStatus;
import dev.herald.core.inbound.Inbound;
import dev.herald.core.inbound.StartupGate;
import dev.herald.core.lanes.ActiveTurn;
import dev.herald.core.lanes.LaneDriver;
import dev.herald.core.lanes.PendingApprovals;
import dev.herald.core.lanes.Pickup;
import dev.herald.core.lanes.SessionLanes;
import dev.herald.core.lanes.TurnOptionsLookup;
import dev.herald.core.lanes.TurnRunner;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.Outbox;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.outbox.Redelivery;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.HomeChannelStore;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PriorMessage;
import dev.herald.core.recovery.Resumer;
import dev.herald.core.recovery.Takeover;
import dev.herald.core.recovery.Watchdog;
import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.side.BusyModes;
import dev.herald.core.side.SideCommands;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner: wires the parts that take inbound events from every platform and run turns in per-session
 * lanes, and moves the gateway through its states (stopped, starting, running, draining, stopped).
 *
 * <p>Inbound goes to {@link Inbound} (admission). Start-up's store side is {@link Startup}; as each platform
 * connects, {@link Redelivery} delivers its unsent replies and the {@link Resumer} resumes its sessions (F1-F5);
 * the start-up gate opens once those resume turns end or the restore bound passes (F6, F7). A stop is the
 * {@link Drain}. While running, the {@link Watchdog} ends turns that no lane runs. Each background worker is owned
 * here and stopped before the drain.
 *
 * <p>The gateway is one node of the store's registry ({@link Membership}): it joins before start-up recovers anything,
 * so start-up takes only what dead nodes left, and {@link Takeover} keeps its lease and takes over the work of nodes
 * that die while it runs. A node that finds it was judged dead stops at once without writing ({@link #onFencedOut}).
 */
public final class Gateway implements InboundSink, GatewayControl {
    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    static final String RESTARTED = "\u267b\ufe0f Gateway restarted successfully. Your session continues.";

    private final Storage storage;
    private final Agent agent;
    private final Authorizer authorizer;
    private final PlatformRegistry platforms;
    private final GatewaySettings settings;
    private final Clock clock;
    private final GatewayMetrics metrics;
    private final SessionLanes lanes = new SessionLanes();
    private final StartupGate gate = new StartupGate();
    private final Outbox outbox;
    private final Redelivery redelivery;
    private final Watchdog watchdog;
    private final LaneDriver driver;
    private final Resumer resumer;
    private final Commands commands;
    private final Inbound inbound;
    private final Startup startup;
    private final Drain drain;
    private final Membership membership;
    private final Takeover takeover;
    private final PlatformLeases platformLeases;
    private final TurnOptionsLookup options;
    private final Turns turns;
    private final GatewayReads reads;
    /** Runs restart requests off the chat's thread: they end by stopping this gateway, so they are not joined. */
    private final ExecutorService control = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("herald-restart-request").factory());
    private final AtomicReference<GatewayState> state = new AtomicReference<>(GatewayState.STOPPED);
    private final CompletableFuture<StopReport> stopped = new CompletableFuture<>();
    private volatile boolean autoResume = true;
    private volatile SessionSource restartedFrom;
    private volatile Instant startedAt;
    private final HomeChannelStore homeChannels;
    private final Consumer<SessionSource> restartHandler;
    private final Consumer<Instant> cleanStopMarker;
    private final Runnable fencedOut;

    /** A gateway whose parts and hooks are all set: only {@link Builder#build} makes one. */
    Gateway(GatewayBuilder b) {
        this.storage = b.storage;
        this.reads = new GatewayReads(b.storage);
        this.agent = b.agent;
        this.authorizer = b.authorizer;
        this.platforms = b.platforms;
        this.settings = b.settings;
        this.clock = b.clock;
        this.metrics = b.metrics;
        this.homeChannels = b.homeChannels;
        this.restartHandler = b.restartHandler;
        this.cleanStopMarker = b.cleanStopMarker;
        this.fencedOut = b.fencedOut;
        ClusterSettings cluster = b.cluster;
        GatewaySettings settings = b.settings;
        Clock clock = b.clock;
        GatewayMetrics metrics = b.metrics;
        this.membership = new Membership(storage.nodes(), cluster);
        Turns turns = new Turns(storage.turns(), metrics::turnMoved, membership.id());
        this.turns = turns;
        OrphanedTurns orphans = new OrphanedTurns(turns, settings.freshness(), clock);
        ResumeMarks marks = new ResumeMarks(storage.sessions(), turns);
        this.outbox = new Outbox(turns, platforms, metrics, membership::holdsLease);
        this.redelivery = new Redelivery(outbox, platforms, clock, settings.redeliveryInterval(), this::confirmRestart);
        PendingApprovals approvals = new PendingApprovals(outbox, settings.approvalTimeout());
        this.options = new TurnOptionsLookup(turns);
        TurnRunner runner = new TurnRunner(new TurnRunner.Records(storage, turns, orphans, marks),
                new TurnRunner.Delivery(platforms, outbox, approvals, options), agent, authorizer, lanes,
                new TurnRunner.Policy(settings.freshness(), settings.allowDangerousWithoutUser(), b.approvers),
                new TurnRunner.Node(membership, this::accepting), clock, metrics);
        BusyModes busyModes = new BusyModes(storage.chatPreferences(), settings.busyPolicy());
        this.driver = new LaneDriver(lanes, runner, this::accepting, busyModes::of);
        this.watchdog = new Watchdog(turns, orphans, lanes, membership, clock, settings.watchdogInterval(), settings.orphanGrace(),
                cluster.lease().plus(settings.drainTimeout()), t -> driver.dispatch(t, false));
        this.resumer = new Resumer(storage, turns, lanes, driver, authorizer, platforms, settings.freshness(), clock, metrics,
                membership.id(), settings.stuckLoopThreshold());
        this.commands = new Commands(storage, turns, lanes, outbox, authorizer, this, clock, approvals, agent, metrics, b.commandTiers);
        this.inbound = new Inbound(settings.keyPolicy(), authorizer, outbox, commands, turns, gate, driver, this::accepting, platforms,
                storage::health, options, b.mediaKeeper);
        this.startup = new Startup(turns, orphans, storage.sessions(), gate, settings, metrics, membership);
        Pickup pickup = new Pickup(turns, lanes, driver, platforms, clock);
        this.platformLeases = new PlatformLeases(membership, platforms, this::startAdapter);
        this.takeover = new Takeover(membership, turns, orphans, () -> {
            if (state.get() == GatewayState.RUNNING) {
                platformLeases.round();
                pickup.round();
                if (autoResume) {
                    resumer.resumeTakenOver();
                }
            }
        });
        membership.onFenced(this::fenceOut);
        this.drain = new Drain(lanes, turns, marks, new ShutdownNotices(lanes, platforms, outbox), platforms, settings, membership,
                b.onHandover);
        SideCommands.addTo(commands, new SideCommands.Parts(storage, turns, lanes, outbox, agent, platforms, clock, busyModes,
                inbound::enqueue, inbound::steer, this::accept, settings.keyPolicy()));
        b.commands.forEach(commands::add);
        b.storedOptions.ifPresent(options::use);
        options.use(b.channels);
        driver.use(b.channels, busyModes::chosen);
    }

    /** A builder of the gateway on {@code storage} that runs {@code agent} for the users {@code authorizer} lets in. */
    public static GatewayBuilder builder(Storage storage, Agent agent, Authorizer authorizer, PlatformRegistry platforms) {
        return new GatewayBuilder(storage, agent, authorizer, platforms);
    }

    // ---- start ----------------------------------------------------------------------------------

    /** What start-up found and did. */
    public record StartReport(List<SessionKey> recovered, List<SessionKey> suspended, int heldFromLastRun, int replayed,
            boolean restoreTimedOut, Duration took) {
    }

    /**
     * How this boot starts.
     *
     * @param autoResume      false when the crash-loop breaker tripped: nothing is resumed automatically
     * @param restartedFrom   the chat that asked for the restart that led to this start; it gets a
     *                        confirmation once its platform is connected
     */
    public record StartOptions(boolean autoResume, Optional<SessionSource> restartedFrom) {
        public static StartOptions normal() {
            return new StartOptions(true, Optional.empty());
        }
    }

    /** Starts the gateway and returns once start-up restore is over (the gate is open). */
    public StartReport start(StartOptions options) {
        long t0 = System.nanoTime();
        if (!state.compareAndSet(GatewayState.STOPPED, GatewayState.STARTING)) {
            throw new IllegalStateException("gateway - start called in state " + state.get());
        }
        startedAt = clock.instant();
        for (HomeChannel h : homeChannels.load()) {
            if (platforms.adapter(h.platform()).isPresent()) {
                platforms.setHome(h);
            }
        }
        autoResume = options.autoResume();
        restartedFrom = options.restartedFrom().orElse(null);
        membership.join();
        membership.judge(); // nodes whose lease ran out are gone before start-up looks at what they left
        Startup.Recovered recovered = startup.recover();
        takeover.start();
        if (!autoResume) {
            log.warn("gateway - auto-resume is OFF for this boot (crash-loop breaker): interrupted sessions resume when their users write");
        }
        redelivery.start();
        for (PlatformAdapter a : platforms.all()) {
            if (!a.capabilities().delivery().singleConnection()) {
                startAdapter(a);
            }
        }
        platformLeases.round(); // a connection that must be single starts where its lease is taken

        boolean timedOut = startup.awaitResumes();
        int replayed = gate.open(t -> driver.dispatch(t, false));
        state.compareAndSet(GatewayState.STARTING, GatewayState.RUNNING);
        watchdog.start();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        log.info("gateway - running ({} platform(s), agent {}); start-up took {} ms, {} held message(s) replayed",
                platforms.all().size(), agent.describe(), took.toMillis(), replayed);
        metrics.gatewayStarted(membership.id());
        return new StartReport(recovered.marked(), recovered.suspended(), recovered.held(), replayed, timedOut, took);
    }

    private void startAdapter(PlatformAdapter a) {
        platforms.setConnection(a.platform(), ConnectionState.CONNECTING, "starting");
        try {
            a.start(this);
        } catch (Exception e) {
            platforms.setConnection(a.platform(), ConnectionState.BACKING_OFF, e.getMessage());
            log.error("{} - could not start: {}", a.platform(), e.getMessage());
        }
    }

    /**
     * A platform's connection changed (called on the adapter's thread). On connect, its unsent replies are handed to
     * the redelivery worker (never sent on this thread) and its resume-pending sessions are resumed.
     */
    @Override
    public void connectionChanged(Platform platform, ConnectionState newState, String detail) {
        platforms.setConnection(platform, newState, detail);
        metrics.platformConnection(platform, newState.name());
        log.info("{} - {}{}", platform, newState.name().toLowerCase(java.util.Locale.ROOT), detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
        if (newState != ConnectionState.CONNECTED || !accepting()) {
            return;
        }
        redelivery.connected(platform);
        if (!autoResume) {
            return;
        }
        List<CompletableFuture<Void>> scheduled = resumer.schedule(platform);
        if (state.get() == GatewayState.STARTING) {
            startup.scheduled(scheduled);
        }
    }

    /** After the platform's waiting replies: the chat that asked for the restart hears that it is back. */
    private void confirmRestart(Platform platform) {
        SessionSource requester = restartedFrom;
        if (requester != null && requester.platform().equals(platform)) {
            restartedFrom = null;
            outbox.send(platform, requester.target(), RESTARTED, MessageKind.NOTICE, null, null);
        }
    }

    // ---- inbound --------------------------------------------------------------------------------

    @Override
    public Admission accept(MessageEvent event) {
        return inbound.accept(event);
    }

    @Override
    public Admission enqueue(MessageEvent event) {
        return inbound.enqueue(event);
    }

    /** Read from the store, so a link to a file works on any node. */
    @Override
    public Optional<dev.herald.core.platform.OutboundFile> sentFile(Platform platform, long turnId, int index) {
        return turns.find(turnId).filter(t -> t.source().platform().equals(platform) && index >= 0 && index < t.replyFiles().size())
                .map(t -> t.replyFiles().get(index));
    }

    /** Read from the store, so a retry sent to any node finds what the node that received the message made of it. */
    @Override
    public Optional<PriorMessage> prior(Platform platform, String messageId) {
        return turns.findByMessage(platform.id(), messageId).map(t -> priorOf(t, 0));
    }

    /**
     * What a client that sends a message again is answered with, from the state of the message's turn. A turn cut off by
     * a restart or a crash is answered by the automatic resume that continues it: the first resume turn of its lane after
     * it (waited for while the lane is still resume-pending).
     */
    private PriorMessage priorOf(TurnRecord turn, int depth) {
        return switch (turn.state()) {
            case RECEIVED, RUNNING -> new PriorMessage.Pending();
            case AWAITING_DELIVERY, DELIVERED, UNDELIVERABLE -> turn.reply() == null ? new PriorMessage.Answered("")
                    : Outbox.isFailure(turn.outcome()) ? new PriorMessage.Ended(turn.reply())
                    : new PriorMessage.Answered(turn.reply(), sentFiles(turn));
            case CANCELLED -> new PriorMessage.Ended("it was cancelled before it ran (a /stop, or the sender's access changed)");
            case FAILED -> new PriorMessage.Ended(TurnRunner.APOLOGY);
            case INTERRUPTED -> {
                Optional<TurnRecord> resume = depth < 5 ? turns.resumeAfter(turn.sessionKey(), turn.id()) : Optional.empty();
                // a resume that found nothing left (the session's next message ran first, with the note) continued nothing
                if (resume.isPresent() && !(resume.get().state() == TurnState.CANCELLED
                        && TurnRunner.NOTHING_TO_RESUME.equals(resume.get().outcome()))) {
                    yield priorOf(resume.get(), depth + 1);
                }
                boolean pending = storage.sessions().find(turn.sessionKey()).map(e -> e.resumePending() && !e.suspended()).orElse(false);
                // not resumed on its own: the session's next message carried the note (its answer continues this one), or the
                // interruption was too old to resume
                yield pending ? new PriorMessage.Pending() : new PriorMessage.Ended("its turn was cut off by a restart; the "
                        + "session's next turn continued it, and the answer is in the session's transcript");
            }
        };
    }

    private static List<dev.herald.core.platform.OutboundFile> sentFiles(TurnRecord turn) {
        List<dev.herald.core.platform.OutboundFile> out = new java.util.ArrayList<>();
        for (int k = 0; k < turn.replyFiles().size(); k++) {
            out.add(turn.replyFiles().get(k).withRef(turn.id(), k));
        }
        return out;
    }

    private boolean accepting() {
        GatewayState s = state.get();
        return s == GatewayState.STARTING || s == GatewayState.RUNNING;
    }

    // ---- stop -----------------------------------------------------------------------------------

    /**
     * Stops the gateway (idempotent: a second call waits for the first). Returns what was cut off.
     *
     * @param requestedInChat true for an in-chat /restart (home channels are not broadcast to)
     */
    public StopReport stop(StopKind kind, boolean requestedInChat) {
        GatewayState now = state.get();
        if (kind == StopKind.HANDOVER && (now == GatewayState.RUNNING || now == GatewayState.STARTING)) {
            drain.handOver(); // the new process takes new connections; what reaches this one meanwhile is still answered
        }
        if (!state.compareAndSet(GatewayState.RUNNING, GatewayState.DRAINING)
                && !state.compareAndSet(GatewayState.STARTING, GatewayState.DRAINING)) {
            return state.get() == GatewayState.STOPPED && !stopped.isDone()
                    ? new StopReport(kind, List.of(), Duration.ZERO)
                    : stopped.join();
        }
        metrics.gatewayStopping(membership.id(), kind.name().toLowerCase(java.util.Locale.ROOT));
        redelivery.stop(settings.interruptGrace());
        watchdog.stop(settings.interruptGrace());
        takeover.stop(settings.interruptGrace());
        platformLeases.release(); // another node connects now; this one's turns still send their replies
        StopReport report = drain.run(kind, requestedInChat);
        driver.close(settings.interruptGrace());
        control.shutdown();
        membership.leave();
        state.set(GatewayState.STOPPED);
        if (report.clean() && kind != StopKind.HANDOVER) {
            cleanStopMarker.accept(clock.instant()); // after a handover the new process runs: nothing to mark
        }
        stopped.complete(report);
        return report;
    }

    /**
     * This node was judged dead by another node, which took its sessions and turns: it stops at once, writing nothing
     * (every turn write would be refused anyway), sends nothing more, and tells its owner ({@link #onFencedOut}).
     */
    private void fenceOut() {
        if (!state.compareAndSet(GatewayState.RUNNING, GatewayState.DRAINING)
                && !state.compareAndSet(GatewayState.STARTING, GatewayState.DRAINING)) {
            return;
        }
        Thread.ofVirtual().name("herald-fenced-stop").start(() -> {
            redelivery.stop(settings.interruptGrace());
            watchdog.stop(settings.interruptGrace());
            takeover.stop(Duration.ZERO);
            List<SessionKey> cut = lanes.activeTurns().stream().map(ActiveTurn::key).toList();
            lanes.activeTurns().forEach(t -> t.interrupt().raise("this node was fenced out"));
            drain.closeAdapters();
            driver.close(settings.interruptGrace());
            control.shutdown();
            state.set(GatewayState.STOPPED);
            stopped.complete(new StopReport(StopKind.RESTART, cut, Duration.ZERO));
            fencedOut.run();
        });
    }

    /** This gateway's node in the store's registry. */
    public Membership membership() {
        return membership;
    }

    /**
     * A second stop request during a drain (an operator's second Ctrl-C): the drain stops waiting and cuts off the
     * turns still running at once, marked for resume first as always. Does nothing when no drain runs.
     */
    public void hurryStop() {
        if (state.get() == GatewayState.DRAINING) {
            drain.hurry();
        }
    }

    /** Completes when the gateway has stopped. */
    public CompletableFuture<StopReport> stopped() {
        return stopped;
    }

    // ---- control --------------------------------------------------------------------------------

    @Override
    public void requestRestart(SessionSource requester) {
        log.info("gateway - restart requested from {} chat {}", requester.platform(), requester.chatId());
        onControlThread(() -> restartHandler.accept(requester));
    }

    /** An operator asked for a restart (no chat to confirm to). */
    public void requestRestart() {
        log.info("gateway - restart requested by an operator");
        onControlThread(() -> restartHandler.accept(null));
    }

    private void onControlThread(Runnable work) {
        try {
            control.execute(work);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.info("gateway - restart request ignored: the gateway has stopped");
        }
    }

    @Override
    public void setHome(SessionSource source) {
        HomeChannel home = new HomeChannel(source.platform(), source.target(), source.chatName());
        platforms.setHome(home);
        homeChannels.save(home);
        log.info("{} - home channel set to chat {}{}", source.platform(), source.chatId(),
                source.threadId() == null ? "" : " thread " + source.threadId());
    }

    // ---- admin (the dashboard and the CLI act through these) --------------------------------------

    /** Resumes one resume-pending session now, as start-up would (authorization included); false when it cannot. */
    public boolean resumeNow(SessionKey key) {
        return accepting() && resumer.resumeOne(key);
    }

    /** Suspends a session from outside the chat; a running turn is interrupted. */
    public boolean suspend(SessionKey key) {
        lanes.active(key).ifPresent(t -> t.interrupt().raise("suspended by an operator"));
        boolean suspended = storage.sessions().suspend(key, SuspendReason.OPERATOR);
        if (suspended) {
            metrics.sessionsSuspended(1, SuspendReason.OPERATOR.code());
        }
        return suspended;
    }

    /** Lifts a suspension from outside the chat (the session's next message runs as usual); false when it was not suspended. */
    public boolean unsuspend(SessionKey key) {
        return storage.sessions().unsuspend(key);
    }

    /**
     * Deletes a session's transcripts, turns and model choice for good; refused while a turn of it is not finished or it is
     * resume-pending (the result says why).
     */
    public PurgeResult purge(SessionKey key) {
        return storage.sessions().purge(key);
    }

    /** Clears a session's resume mark from outside the chat (its next message is not treated as a resume). */
    public boolean clearResumeMark(SessionKey key) {
        return storage.sessions().clearResumePending(key);
    }

    @Override
    public boolean runInLane(SessionKey key, Runnable work) {
        if (!accepting() || !lanes.tryClaim(key)) {
            return false;
        }
        driver.launch(key, () -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                log.error("gateway - lane work on {} failed", key, e);
            }
            return Optional.empty();
        });
        return true;
    }

    @Override
    public GatewayStatus status() {
        return new GatewayStatus(state.get(), startedAt, lanes.activeTurns().size(), lanes.claimedCount(),
                lanes.waitingCount() + gate.heldCount(), !gate.isOpen(), autoResume, platforms.connections(), agent.describe(),
                storage.health());
    }

    /** The turns running now (for invariant checks and the admin page). */
    public List<ActiveTurn> activeTurns() {
        return lanes.activeTurns();
    }

    /** What the admin pages read of this gateway's store. */
    public GatewayReads reads() {
        return reads;
    }

    public PlatformRegistry platforms() {
        return platforms;
    }
}
