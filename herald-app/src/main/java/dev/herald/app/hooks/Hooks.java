package dev.herald.app.hooks;

import dev.herald.app.hooks.HookConfig;
import dev.herald.core.agent.ApprovalRequest;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured {@code hooks:}, told of the gateway's lifecycle events as a {@link GatewayMetrics} receiver.
 *
 * <p>Design: the gateway's thread only builds the payload and offers it to a bounded queue, so a hook never delays a
 * turn; a full queue drops the event, with one warning per {@link #DROP_WARNING_EVERY} counting what was dropped. One
 * dispatcher thread takes events in order and hands each to its hook's own line: a hook runs its events one at a time,
 * in the order they happened (a command hook that appends to a file never sees {@code turn.completed} before the
 * {@code session.started} that came first), on a virtual thread; different hooks run side by side, at most
 * {@link #MAX_RUNNING} at once. {@link #close()} lets what is queued (such as {@code gateway.stopping}) run for up to
 * {@link #CLOSE_GRACE}, then interrupts what still runs.
 */
public final class Hooks implements GatewayMetrics, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("hooks");
    static final int QUEUE_CAPACITY = 256;
    static final int MAX_RUNNING = 16;
    static final Duration DROP_WARNING_EVERY = Duration.ofMinutes(1);
    static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private record Job(HookRun hook, HookEvent event, String payload) {
    }

    private final List<HookRun> hooks;
    private final Clock clock;
    private final BlockingQueue<Job> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final Semaphore running = new Semaphore(MAX_RUNNING);
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong lastDropWarning = new AtomicLong(Long.MIN_VALUE);
    private final List<Thread> workers = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Each hook's events taken from the queue and not yet finished, oldest first (guarded by itself). */
    private final java.util.Map<HookRun, java.util.ArrayDeque<Job>> lines = new java.util.HashMap<>();
    /** Events taken from the queue whose hook has not finished them. */
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final Thread dispatcher;
    private volatile Supplier<String> node = () -> null;
    private volatile boolean closed;

    public Hooks(List<HookConfig> configs, Clock clock) {
        this.clock = clock;
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER).build();
        List<HookRun> runs = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            runs.add(new HookRun(i, configs.get(i), http));
        }
        this.hooks = List.copyOf(runs);
        this.dispatcher = hooks.isEmpty() ? null : Thread.ofVirtual().name("hooks-dispatcher").start(this::dispatch);
        if (!hooks.isEmpty()) {
            log.info("hooks - {} hook(s): {}", hooks.size(), String.join(", ", hooks.stream()
                    .map(h -> h.name() + " on " + String.join(" ", h.config().eventSet().stream().map(HookEvent::wire).toList())).toList()));
        }
    }

    /** Names the node in every payload (before the gateway has started, when its first turns may already run). */
    public Hooks node(Supplier<String> nodeId) {
        this.node = nodeId;
        return this;
    }

    @Override
    public void sessionStarted(TurnRecord turn) {
        fire(HookEvent.SESSION_STARTED, () -> HookPayload.sessionStarted(clock.instant(), node.get(), turn));
    }

    @Override
    public void turnEnded(TurnRecord turn, TurnOutcome outcome, long nanos) {
        HookEvent event = failed(outcome) ? HookEvent.TURN_FAILED : HookEvent.TURN_COMPLETED;
        fire(event, () -> HookPayload.turnEnded(event, clock.instant(), node.get(), turn, outcome, nanos));
    }

    @Override
    public void approvalRequested(TurnRecord turn, ApprovalRequest request) {
        fire(HookEvent.APPROVAL_REQUESTED, () -> HookPayload.approval(clock.instant(), node.get(), turn, request.toolName(), request.reason()));
    }

    @Override
    public void gatewayStarted(String nodeId) {
        fire(HookEvent.GATEWAY_STARTED, () -> HookPayload.gateway(HookEvent.GATEWAY_STARTED, clock.instant(), nodeId, null));
    }

    @Override
    public void gatewayStopping(String nodeId, String kind) {
        fire(HookEvent.GATEWAY_STOPPING, () -> HookPayload.gateway(HookEvent.GATEWAY_STOPPING, clock.instant(), nodeId, kind));
    }

    /** A turn failed when the agent gave up or broke ({@code failed}, {@code error}); any other end is completed. */
    static boolean failed(TurnOutcome outcome) {
        return outcome instanceof TurnOutcome.Failed || outcome instanceof TurnOutcome.Errored;
    }

    private void fire(HookEvent event, Supplier<String> payload) {
        if (closed || hooks.isEmpty()) {
            return;
        }
        String json = null;
        for (HookRun h : hooks) {
            if (!h.config().eventSet().contains(event)) {
                continue;
            }
            if (json == null) {
                try {
                    json = payload.get();
                } catch (RuntimeException e) {
                    log.warn("hooks - could not describe {}: {}", event.wire(), e.toString());
                    return;
                }
            }
            if (!queue.offer(new Job(h, event, json))) {
                droppedOne(event);
            }
        }
    }

    private void droppedOne(HookEvent event) {
        dropped.incrementAndGet();
        long now = System.nanoTime();
        long last = lastDropWarning.get();
        if ((last == Long.MIN_VALUE || now - last >= DROP_WARNING_EVERY.toNanos()) && lastDropWarning.compareAndSet(last, now)) {
            log.warn("hooks - the queue is full ({} events waiting, {} hooks running): {} dropped, the latest {}; hooks are too "
                    + "slow for the events (lower their timeout_seconds or their work)", QUEUE_CAPACITY,
                    MAX_RUNNING - running.availablePermits(), dropped.getAndSet(0), event.wire());
        }
    }

    private void dispatch() {
        while (true) {
            Job job;
            try {
                job = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            inFlight.incrementAndGet();
            boolean idle;
            synchronized (lines) {
                java.util.ArrayDeque<Job> line = lines.computeIfAbsent(job.hook(), h -> new java.util.ArrayDeque<>());
                line.addLast(job);
                idle = line.size() == 1; // else the hook's worker takes it after the ones before it
            }
            if (idle) {
                Thread t = Thread.ofVirtual().name("hook").unstarted(() -> runLine(job.hook()));
                workers.add(t);
                t.start();
            }
        }
    }

    /** Runs {@code hook}'s waiting events in order until none is left. */
    private void runLine(HookRun hook) {
        try {
            Job job;
            synchronized (lines) {
                job = lines.get(hook).peekFirst();
            }
            while (job != null) {
                try {
                    running.acquire();
                } catch (InterruptedException e) {
                    return; // closing: what is left is cut off
                }
                try {
                    job.hook().run(job.event(), job.payload());
                } catch (RuntimeException e) {
                    log.warn("hooks - hooks[{}] failed on {}: {}", hook.index(), job.event().wire(), e.toString());
                } finally {
                    running.release();
                    inFlight.decrementAndGet();
                }
                synchronized (lines) {
                    java.util.ArrayDeque<Job> line = lines.get(hook);
                    line.pollFirst();
                    job = line.peekFirst();
                }
            }
        } finally {
            workers.remove(Thread.currentThread());
        }
    }

    /** Stops taking events; what is queued or running gets {@link #CLOSE_GRACE} to finish, then is cut off. */
    @Override
    public void close() {
        if (closed || dispatcher == null) {
            closed = true;
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + CLOSE_GRACE.toNanos();
        try {
            while (System.nanoTime() < deadline && (!queue.isEmpty() || inFlight.get() > 0)) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dispatcher.interrupt();
        int left = queue.size() + Math.max(0, inFlight.get() - workers.size());
        queue.clear();
        List<Thread> still;
        synchronized (workers) {
            still = List.copyOf(workers);
        }
        still.forEach(Thread::interrupt);
        if (left > 0 || !still.isEmpty()) {
            log.warn("hooks - stopped with {} event(s) not run and {} hook(s) cut off after {} ms", left, still.size(), CLOSE_GRACE.toMillis());
        }
    }
}
