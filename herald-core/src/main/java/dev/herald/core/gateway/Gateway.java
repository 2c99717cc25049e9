package dev.herald.core.gateway;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.HomeChannelStore;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.core.session.SuspendReason;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner: takes inbound events from every platform, runs turns in per-session lanes, and owns the
 * start-up and stop sequences.
 *
 * <p>Inbound ({@link #accept}): authorization, then slash commands (answered inline), then the durable
 * turn record (dedupe by platform message id), then either the start-up gate (held while restore runs)
 * or the session's lane.
 *
 * <p>Start ({@link #start}): crashed turns become resume-pending (G2), stuck loops are suspended (E4,
 * G3), turns stored but never run are held for replay, adapters connect; as each platform connects its
 * unsent replies are delivered and its resume-pending sessions are resumed (F1-F5); the gate opens once
 * those resume turns end or the restore bound passes (F6, F7).
 *
 * <p>Stop ({@link #stop}): no new turns; chats and home channels are told (E2, E3); running sessions
 * are marked resume-pending before anything is interrupted (E1); the drain waits; what still runs is
 * counted for the stuck-loop breaker and interrupted; adapters close.
 */
public final class Gateway implements InboundSink, GatewayControl {
    private static final Logger log = LoggerFactory.getLogger(Gateway.class);

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
    private final LaneDriver driver;
    private final Resumer resumer;
    private final Commands commands;
    private final ShutdownNotices notices;
    private final AtomicReference<GatewayState> state = new AtomicReference<>(GatewayState.STOPPED);
    private final List<CompletableFuture<Void>> startupResumes = new ArrayList<>();
    private final CompletableFuture<StopReport> stopped = new CompletableFuture<>();
    private volatile boolean autoResume = true;
    private volatile SessionSource restartedFrom;
    private volatile Instant startedAt;
    private volatile HomeChannelStore homeChannels = HomeChannelStore.inMemory();
    private volatile Consumer<SessionSource> restartHandler = s -> log.warn("gateway - restart requested but no restart handler is installed");

    public Gateway(Storage storage, Agent agent, Authorizer authorizer, PlatformRegistry platforms, GatewaySettings settings,
            Clock clock, GatewayMetrics metrics) {
        this.storage = storage;
        this.agent = agent;
        this.authorizer = authorizer;
        this.platforms = platforms;
        this.settings = settings;
        this.clock = clock;
        this.metrics = metrics;
        this.outbox = new Outbox(storage.turns(), platforms, metrics);
        this.redelivery = new Redelivery(outbox, platforms, clock, settings.redeliveryInterval());
        PendingApprovals approvals = new PendingApprovals(outbox, settings.approvalTimeout());
        TurnRunner runner = new TurnRunner(storage, agent, authorizer, platforms, outbox, lanes, settings, clock, metrics, approvals);
        this.driver = new LaneDriver(lanes, runner, this::accepting, settings.busyPolicy());
        this.resumer = new Resumer(storage, lanes, driver, authorizer, platforms, settings.freshness(), clock, metrics);
        this.commands = new Commands(storage, lanes, outbox, authorizer, this, clock, approvals, agent, metrics);
        this.notices = new ShutdownNotices(lanes, platforms, outbox);
    }

    /** Installs what a restart request (/restart) does: typically stop with {@link StopKind#RESTART} and exit to be restarted. */
    public void onRestartRequested(Consumer<SessionSource> handler) {
        this.restartHandler = handler;
    }

    /** Adds a chat command answered by {@code command} (such as /schedule); before {@link #start}. */
    public void addCommand(CommandExtension command) {
        commands.add(command);
    }

    /** Where /sethome keeps home channels; those saved earlier override configured ones at start. */
    public void useHomeChannelStore(HomeChannelStore store) {
        this.homeChannels = store;
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

    static final String RESTARTED = "\u267b\ufe0f Gateway restarted successfully. Your session continues.";

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
        List<SessionKey> recovered = storage.turns().recoverInterrupted(settings.freshness(), clock.instant());
        if (!recovered.isEmpty()) {
            log.info("gateway - {} turn(s) were cut off by an unclean stop; their sessions are resume-pending (restart_interrupted)",
                    recovered.size());
        }
        List<SessionKey> stuck = storage.sessions().suspendStuckLoops(settings.stuckLoopThreshold());
        for (SessionKey k : stuck) {
            log.warn("gateway - suspended {}: interrupted by {} stops or crashes in a row (likely a stuck loop); its next message starts fresh",
                    k, settings.stuckLoopThreshold());
        }
        metrics.sessionsSuspended(stuck.size(), SuspendReason.STUCK_LOOP.code());
        int held = 0;
        for (TurnRecord t : storage.turns().inState(TurnState.RECEIVED, 100_000)) {
            if (t.origin() == MessageEvent.Origin.RESUME) {
                storage.turns().cancel(t.id(), "superseded: start-up schedules its own resume");
                continue;
            }
            gate.hold(t);
            held++;
        }
        if (held > 0) {
            log.info("gateway - {} message(s) received before the last stop were never answered; they run after start-up restore", held);
        }
        if (!autoResume) {
            log.warn("gateway - auto-resume is OFF for this boot (crash-loop breaker): interrupted sessions resume when their users write");
        }
        for (PlatformAdapter a : platforms.all()) {
            startAdapter(a);
        }
        boolean timedOut = awaitStartupResumes();
        int replayed = gate.open(t -> driver.dispatch(t, false));
        state.compareAndSet(GatewayState.STARTING, GatewayState.RUNNING);
        redelivery.start();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        log.info("gateway - running ({} platform(s), agent {}); start-up took {} ms, {} held message(s) replayed",
                platforms.all().size(), agent.describe(), took.toMillis(), replayed);
        return new StartReport(recovered, stuck, held, replayed, timedOut, took);
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

    private boolean awaitStartupResumes() {
        List<CompletableFuture<Void>> tasks;
        synchronized (startupResumes) {
            tasks = new ArrayList<>(startupResumes);
        }
        if (tasks.isEmpty()) {
            return false;
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new));
        Duration bound = settings.startupRestoreTimeout();
        try {
            all.get(Math.max(0, bound.toMillis()), TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException e) {
            long running = tasks.stream().filter(f -> !f.isDone()).count();
            log.warn("gateway - start-up restore released after {} s with {} resume turn(s) still running; replaying held messages now "
                    + "(their sessions' lanes are claimed, so nothing runs twice)", bound.toSeconds(), running);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        } catch (java.util.concurrent.ExecutionException e) {
            return false;
        }
    }

    @Override
    public void connectionChanged(Platform platform, ConnectionState newState, String detail) {
        platforms.setConnection(platform, newState, detail);
        metrics.platformConnection(platform, newState.name());
        log.info("{} - {}{}", platform, newState.name().toLowerCase(java.util.Locale.ROOT), detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
        if (newState != ConnectionState.CONNECTED || !accepting()) {
            return;
        }
        outbox.redeliver(platform);
        confirmRestart(platform);
        if (!autoResume) {
            return;
        }
        List<CompletableFuture<Void>> scheduled = resumer.schedule(platform);
        if (state.get() == GatewayState.STARTING) {
            synchronized (startupResumes) {
                startupResumes.addAll(scheduled);
            }
        }
    }

    private void confirmRestart(Platform platform) {
        SessionSource requester = restartedFrom;
        if (requester != null && requester.platform().equals(platform)) {
            restartedFrom = null;
            outbox.send(platform, requester.target(), RESTARTED, dev.herald.core.platform.MessageKind.NOTICE, null, null);
        }
    }

    // ---- inbound --------------------------------------------------------------------------------

    @Override
    public Admission accept(MessageEvent event) {
        SessionKey key;
        try {
            key = SessionKey.of(event.source(), settings.keyPolicy());
        } catch (IllegalArgumentException e) {
            // an adapter let through ids that cannot name a session: the message is refused, never retried
            log.warn("{} - message {} refused: its ids cannot name a session ({})", event.source().platform(), event.messageId(),
                    e.getMessage());
            return Admission.REFUSED;
        }
        if (!authorizer.isAuthorized(event.source())) {
            log.info("{} - message from unauthorized user {} in chat {} refused", event.source().platform(),
                    event.source().userId(), event.source().chatId());
            if (!event.internal()) {
                // nobody wrote an internal event (a scheduled job's run): nobody is told, least of all a pairing code
                authorizer.refusalReply(event.source()).ifPresent(reply -> outbox.send(event.source().platform(),
                        event.source().target(), reply, MessageKind.COMMAND_RESPONSE, event.messageId(), event.eventId()));
            }
            return Admission.REFUSED;
        }
        if (event.isCommand() && !event.internal()) {
            commands.handle(event, key);
            return Admission.ANSWERED;
        }
        return admit(key, event, !event.internal());
    }

    @Override
    public Admission enqueue(MessageEvent event) {
        return admit(SessionKey.of(event.source(), settings.keyPolicy()), event, false);
    }

    private Admission admit(SessionKey key, MessageEvent event, boolean mayInterrupt) {
        if (!accepting()) {
            return Admission.REJECTED_STOPPING;
        }
        Optional<TurnRecord> turn = storage.turns().receive(key, withAttachmentsInText(event));
        if (turn.isEmpty()) {
            log.info("{} - message {} was delivered before; dropped", event.source().platform(), event.messageId());
            return Admission.DUPLICATE;
        }
        if (!gate.hold(turn.get())) {
            driver.dispatch(turn.get(), mayInterrupt);
        } else {
            log.info("{} - message for {} held until start-up restore finishes", event.source().platform(), key);
        }
        return Admission.ACCEPTED;
    }

    /** Attachments become lines of the stored text: the turn record and the transcript keep them. */
    private static MessageEvent withAttachmentsInText(MessageEvent e) {
        return e.media().isEmpty() ? e : new MessageEvent(e.eventId(), e.source(), e.textWithAttachments(), e.messageId(),
                e.replyToMessageId(), List.of(), e.origin(), e.receivedAt());
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
        if (!state.compareAndSet(GatewayState.RUNNING, GatewayState.DRAINING)
                && !state.compareAndSet(GatewayState.STARTING, GatewayState.DRAINING)) {
            return state.get() == GatewayState.STOPPED && !stopped.isDone()
                    ? new StopReport(kind, List.of(), Duration.ZERO)
                    : stopped.join();
        }
        long t0 = System.nanoTime();
        redelivery.stop();
        log.info("gateway - {} requested; draining up to {} s", kind.name().toLowerCase(java.util.Locale.ROOT), settings.drainTimeout().toSeconds());
        notices.announce(kind, requestedInChat);
        List<SessionKey> marked = new ArrayList<>(markRunning(kind));
        boolean drained = awaitIdle(settings.drainTimeout());
        List<ActiveTurn> still = lanes.activeTurns();
        List<SessionKey> cutOff = new ArrayList<>();
        if (!drained && !still.isEmpty()) {
            // a turn whose reply is recorded is only sending it: it is not cut off (the outbox finishes the delivery)
            List<ActiveTurn> running = still.stream().filter(this::stillRunning).toList();
            log.warn("gateway - drain timed out after {} s with {} active turn(s); interrupting the {} still running",
                    settings.drainTimeout().toSeconds(), still.size(), running.size());
            marked.addAll(markRunning(kind));
            for (ActiveTurn t : running) {
                cutOff.add(t.key());
            }
            storage.sessions().countInterruption(cutOff);
            for (ActiveTurn t : running) {
                t.interrupt().raise(kind.interruptReason());
            }
            if (!awaitIdle(settings.interruptGrace())) {
                for (ActiveTurn t : lanes.activeTurns()) {
                    storage.turns().finish(t.turnId(), TurnState.INTERRUPTED, "interrupted");
                    log.warn("gateway - turn {} of {} did not end within {} ms of its interrupt; recorded as interrupted",
                            t.turnId(), t.key(), settings.interruptGrace().toMillis());
                }
            }
        }
        clearMarksOfFinishedTurns(marked);
        for (PlatformAdapter a : platforms.all()) {
            try {
                a.close();
            } catch (RuntimeException e) {
                log.warn("{} - close failed: {}", a.platform(), e.toString());
            }
            platforms.setConnection(a.platform(), ConnectionState.STOPPED, "gateway stopped");
        }
        state.set(GatewayState.STOPPED);
        StopReport report = new StopReport(kind, cutOff, Duration.ofNanos(System.nanoTime() - t0));
        log.info("gateway - stopped in {} ms ({} turn(s) cut off)", report.took().toMillis(), cutOff.size());
        stopped.complete(report);
        return report;
    }

    /**
     * Marks every session whose turn is still running resume-pending; returns the keys this call newly
     * marked. A turn whose reply is already recorded is left alone: there is nothing to resume.
     */
    private List<SessionKey> markRunning(StopKind kind) {
        List<SessionKey> newlyMarked = new ArrayList<>();
        for (ActiveTurn t : lanes.activeTurns()) {
            boolean wasPending = storage.sessions().find(t.key()).map(e -> e.resumePending()).orElse(false);
            if (storage.sessions().markResumePendingWhileRunning(t.key(), t.turnId(), kind.resumeReason()) && !wasPending) {
                newlyMarked.add(t.key());
            }
        }
        return newlyMarked;
    }

    /** Whether the turn has not recorded its reply yet (it is RUNNING in the store). */
    private boolean stillRunning(ActiveTurn t) {
        return storage.turns().find(t.turnId()).map(r -> r.state() == TurnState.RUNNING).orElse(false);
    }

    /**
     * The marks this stop set for turns that then ended by themselves (in the drain, or racing the
     * interrupt) are not needed: such a turn is not cut off and must not be resumed. A lane keeps its
     * mark while a turn still holds it or when its newest turn was interrupted. This holds whether or
     * not the drain timed out for other lanes.
     */
    private void clearMarksOfFinishedTurns(List<SessionKey> marked) {
        for (SessionKey k : new java.util.LinkedHashSet<>(marked)) {
            boolean endedByItself = lanes.active(k).isEmpty() && storage.turns().latestStarted(k)
                    .map(t -> t.state().terminal() && t.state() != TurnState.INTERRUPTED || t.state() == TurnState.AWAITING_DELIVERY)
                    .orElse(false);
            if (endedByItself) {
                storage.sessions().clearResumePending(k);
            }
        }
    }

    private boolean awaitIdle(Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!lanes.activeTurns().isEmpty()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Completes when the gateway has stopped. */
    public CompletableFuture<StopReport> stopped() {
        return stopped;
    }

    // ---- control --------------------------------------------------------------------------------

    @Override
    public void requestRestart(SessionSource requester) {
        log.info("gateway - restart requested from {} chat {}", requester.platform(), requester.chatId());
        Thread.ofVirtual().name("restart-request").start(() -> restartHandler.accept(requester));
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

    /** Clears a session's resume mark from outside the chat (its next message is not treated as a resume). */
    public boolean clearResumeMark(SessionKey key) {
        return storage.sessions().clearResumePending(key);
    }

    /** An operator asked for a restart (no chat to confirm to). */
    public void requestRestart() {
        log.info("gateway - restart requested by an operator");
        Thread.ofVirtual().name("restart-request").start(() -> restartHandler.accept(null));
    }

    @Override
    public boolean runInLane(SessionKey key, Runnable work) {
        if (!accepting() || !lanes.tryClaim(key)) {
            return false;
        }
        driver.launchClaimed(key, () -> {
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
                lanes.waitingCount() + gate.heldCount(), !gate.isOpen(), autoResume, platforms.connections(), agent.describe());
    }

    /** The turns running now (for invariant checks and the admin page). */
    public List<ActiveTurn> activeTurns() {
        return lanes.activeTurns();
    }

    public Storage storage() {
        return storage;
    }

    public PlatformRegistry platforms() {
        return platforms;
    }
}
