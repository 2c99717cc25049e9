package dev.herald.core.schedule;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs due jobs: the one background noun of scheduling. A platform-like component on the gateway's inbound
 * side: an occurrence becomes a {@link MessageEvent} from the job's chat and user, handed to the gateway's
 * {@link InboundSink#accept} exactly as a webhook's request is. So a scheduled turn gets everything an
 * inbound message gets, from the same single enforcement points: authorization (the job's user, checked
 * at every run), durable dedupe, the session lane, the outbox, and resume after a crash by the continuity
 * rules.
 *
 * <h2>Exactly once</h2>
 * <ol>
 *   <li><b>Claim.</b> For each due job, the occurrence to run is decided ({@link Plan}) and claimed with one
 *       compare-and-set in the store ({@link ScheduleStore#claim}): the job's next time moves on from the
 *       value read, and the occurrence is recorded CLAIMED, in one transaction. Of several schedulers on one
 *       database exactly one wins a due time; the claim is the lock, so nothing else coordinates nodes.</li>
 *   <li><b>Submit.</b> The winner hands the gateway the occurrence's event. Its platform message id is
 *       {@code schedule:<job>:<scheduled epoch ms>}, so the gateway's durable dedupe stores one turn per
 *       occurrence however often it is submitted. The occurrence becomes SUBMITTED.</li>
 *   <li><b>Recover.</b> A crash between claim and submit leaves it CLAIMED: the next start (and, while
 *       running, a sweep after {@link Settings#resubmitAfter}) submits it again; if the first submission
 *       got through, the dedupe answers "duplicate" and nothing runs twice. A stop, crash or takeover during the
 *       turn is the gateway's business: the turn is resumed by the continuity rules, as the scheduled task (the
 *       model is told to finish the task, or given it again when nothing of it was recorded), and the job's next
 *       time has already moved on, so the occurrence is not fired again.</li>
 *   <li><b>Settle.</b> A submitted occurrence is done when its turn has ended, or for a cut-off turn when the
 *       turns that resumed it have; its outcome comes from the last of them ({@link ScheduleStore#settle}),
 *       whichever node ran it. A cut-off turn whose resume does not come within {@link Settings#resumeWait} stays
 *       {@code interrupted}.</li>
 * </ol>
 * An occurrence whose previous run of the same job has not ended is not run (recorded as skipped), so a
 * slow job never piles turns up in its chat's queue.
 *
 * <p>Time comes from the injected clock only: {@link #tick} does one pass at the clock's "now", and tests
 * move the clock instead of sleeping. {@link #start} runs ticks on a virtual
 * thread ({@code herald-scheduler}) every {@link Settings#tick}; its owner (the wiring) closes it before the gateway's stop.
 */
public final class Scheduler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("schedule");
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");
    private static final int BATCH = 100;
    /** How the outcome of a run that was cut off and resumed starts ({@code resumed, ok}); its metric counts the rest. */
    private static final String RESUMED = "resumed, ";

    /**
     * @param tick          how often due jobs are looked for (cron has minute precision; 1 s keeps runs punctual)
     * @param grace         how late an occurrence may start and still count as on time (a start-up, a pause)
     * @param resubmitAfter how long an occurrence may stay claimed but not submitted before a sweep submits it again
     * @param sweepEvery    how often claimed occurrences are swept and ended turns settled
     * @param keepRuns      how long finished occurrences are kept for the record
     * @param resumeWait    how long a run whose turn was cut off waits for the gateway to resume it before it is
     *                      recorded as interrupted (the gateway resumes only fresh interruptions: its freshness window)
     */
    public record Settings(Duration tick, Duration grace, Duration resubmitAfter, Duration sweepEvery, Duration keepRuns,
            Duration resumeWait) {
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofSeconds(5),
                    Duration.ofDays(30), Duration.ofHours(1));
        }

        /** With runs waiting {@code wait} for their resume; a wait of zero or less (no freshness gate) waits a day. */
        public Settings withResumeWait(Duration wait) {
            return new Settings(tick, grace, resubmitAfter, sweepEvery, keepRuns, wait.isZero() || wait.isNegative() ? Duration.ofDays(1) : wait);
        }
    }

    /** What one tick did. */
    public record TickReport(int submitted, int notRun, int lostClaims, int resubmitted, int settled) {
    }

    private final ScheduleStore store;
    private final InboundSink gateway;
    private final Clock clock;
    private final ScheduleMetrics metrics;
    private final Settings settings;
    /** Between ticks the loop waits on this; {@link #close} opens it, so a tick in progress is never interrupted. */
    private final java.util.concurrent.CountDownLatch stopping = new java.util.concurrent.CountDownLatch(1);
    private volatile Thread loop;
    private volatile boolean closed;
    private volatile Instant lastSweep = Instant.MIN;
    private volatile Instant lastPrune = Instant.MIN;
    private volatile String lastFailure;

    public Scheduler(ScheduleStore store, InboundSink gateway, Clock clock, ScheduleMetrics metrics, Settings settings) {
        this.store = Objects.requireNonNull(store, "store");
        this.gateway = Objects.requireNonNull(gateway, "gateway");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Submits what an earlier process claimed but may not have submitted, then ticks every {@link Settings#tick}. */
    public synchronized Scheduler start() {
        if (loop != null) {
            throw new IllegalStateException("schedule - the scheduler is already started");
        }
        int again = resubmit(clock.instant(), true);
        if (again > 0) {
            log.info("schedule - {} occurrence(s) claimed before the last stop were submitted again (the dedupe drops any that got through)", again);
        }
        long active = store.list().stream().filter(Job::active).count();
        log.info("schedule - running: {} active job(s), checked every {} ms", active, settings.tick().toMillis());
        loop = Thread.ofVirtual().name("herald-scheduler").start(this::run);
        return this;
    }

    private void run() {
        while (!closed) {
            try {
                tick();
                lastFailure = null;
            } catch (RuntimeException e) {
                String problem = e.getMessage();
                if (!Objects.equals(problem, lastFailure)) {
                    log.warn("schedule - a pass over due jobs failed ({}); trying again every {} ms", problem, settings.tick().toMillis());
                }
                lastFailure = problem;
            }
            try {
                if (stopping.await(settings.tick().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One pass: runs or records every due job, and (every {@link Settings#sweepEvery}) resubmits and settles. */
    public TickReport tick() {
        Instant now = clock.instant();
        int submitted = 0;
        int notRun = 0;
        int lost = 0;
        for (Job job : store.due(now, BATCH)) {
            switch (process(job, now)) {
                case SUBMITTED -> submitted++;
                case NOT_RUN -> notRun++;
                case LOST -> lost++;
                case KEPT -> {
                }
            }
        }
        int resubmitted = 0;
        int settled = 0;
        if (!now.isBefore(lastSweep.plus(settings.sweepEvery()))) {
            lastSweep = now;
            resubmitted = resubmit(now, false);
            settled = settle(now);
            if (!now.isBefore(lastPrune.plus(Duration.ofHours(1)))) {
                lastPrune = now;
                store.prune(now.minus(settings.keepRuns()));
            }
        }
        return new TickReport(submitted, notRun, lost, resubmitted, settled);
    }

    private enum Result { SUBMITTED, NOT_RUN, LOST, KEPT }

    private Result process(Job job, Instant now) {
        Plan plan;
        try {
            plan = Plan.of(job.schedule(), job.nextRunAt(), now, settings.grace(), job.misfire(), job.catchUpWindow());
        } catch (RuntimeException e) {
            log.warn("schedule - job {} could not be planned ({}); it is left as it is", job.id(), e.getMessage());
            return Result.KEPT;
        }
        String outcome = plan.outcome();
        String why = plan.runs() ? null : plan.due() > 1 ? plan.due() + (plan.due() >= Plan.MANY ? "+" : "") + " due times were missed"
                : "it was due " + Duration.between(plan.key(), now).toMinutes() + " min ago";
        if (plan.runs() && store.hasOpenRun(job.id(), now.minus(settings.resumeWait()))) {
            outcome = "skipped";
            why = "its previous run has not finished";
        }
        JobRun run = new JobRun(job.id(), plan.key(), outcome == null ? plan.kind() : JobRun.Kind.NOT_RUN,
                outcome == null ? JobRun.State.CLAIMED : JobRun.State.DONE, job.platform(), JobRun.messageId(job.id(), plan.key()),
                outcome, now, now);
        if (!store.claim(job.id(), job.nextRunAt(), plan.next(), run)) {
            log.debug("schedule - job {} due at {} was claimed by another scheduler", job.id(), plan.key());
            return Result.LOST;
        }
        if (outcome != null) {
            metrics.run(job.id(), outcome);
            log.info("schedule - job {} not run for {} ({}: {}, misfire {}); next {}", job.id(), local(job, plan.key()), outcome, why,
                    job.misfire().code(), next(job, plan.next()));
            return Result.NOT_RUN;
        }
        if (plan.due() > 1) {
            log.info("schedule - job {}: {}{} due times passed while nothing ran; one run for {} (misfire {})", job.id(), plan.due(),
                    plan.due() >= Plan.MANY ? "+" : "", local(job, plan.key()), job.misfire().code());
        }
        submit(job, run, now);
        return Result.SUBMITTED;
    }

    /** Hands the occurrence to the gateway and records what it did; a failure leaves it claimed for the sweep. */
    private Admission submit(Job job, JobRun run, Instant now) {
        Admission a;
        try {
            a = gateway.accept(event(job, run, now));
        } catch (RuntimeException e) {
            log.warn("schedule - job {}: the gateway did not take the run of {} ({}); it is submitted again in {} s", job.id(),
                    local(job, run.scheduledAt()), e.getMessage(), settings.resubmitAfter().toSeconds());
            return Admission.REJECTED_STOPPING;
        }
        switch (a) {
            case ACCEPTED, DUPLICATE, ANSWERED -> {
                store.markSubmitted(job.id(), run.scheduledAt(), now);
                if (a == Admission.ACCEPTED) {
                    metrics.lag(Duration.between(run.scheduledAt(), now).isNegative() ? Duration.ZERO
                            : Duration.between(run.scheduledAt(), now));
                    log.info("schedule - job {} started its run of {} ({}) in {}", job.id(), local(job, run.scheduledAt()),
                            run.kind().code(), job.target());
                }
            }
            case REFUSED -> {
                store.finish(job.id(), run.scheduledAt(), "refused", now);
                metrics.run(job.id(), "refused");
                log.warn("schedule - job {} not run: its user {} on {} is no longer allowed to talk to the agent (removed from the "
                        + "allowlist or unpaired); it stays stored and is refused at every run until the user is allowed again or "
                        + "the job is deleted (/schedule delete {})", job.id(), job.source().userId(), job.platform(), job.id());
            }
            case REJECTED_STOPPING -> log.info("schedule - job {}: the gateway is stopping; the run of {} is submitted at the next start",
                    job.id(), local(job, run.scheduledAt()));
        }
        return a;
    }

    /** The turn's event: from the job's chat and user, with the occurrence's message id (the dedupe key). */
    static MessageEvent event(Job job, JobRun run, Instant now) {
        String when = run.kind() == JobRun.Kind.MANUAL ? "run now by an operator"
                : "due " + local(job, run.scheduledAt()) + " " + job.schedule().zone().getId();
        String text = "[Scheduled task " + job.id() + " (" + job.schedule().text() + "), " + when + "] " + job.prompt();
        return new MessageEvent(EventIds.next(), job.source(), text, run.messageId(), null, List.of(),
                MessageEvent.Origin.SCHEDULE, now);
    }

    /** Submits claimed occurrences that may have been cut off; all of them at start-up. */
    private int resubmit(Instant now, boolean all) {
        int n = 0;
        for (JobRun run : store.claimedBefore(all ? now.plusMillis(1) : now.minus(settings.resubmitAfter()), BATCH)) {
            Optional<Job> job = store.find(run.jobId());
            if (job.isEmpty()) {
                continue;
            }
            Duration late = Duration.between(run.scheduledAt(), now);
            Duration limit = job.get().misfire() == Misfire.RUN_ONCE ? job.get().catchUpWindow() : settings.grace();
            if (run.kind() != JobRun.Kind.MANUAL && late.compareTo(limit.compareTo(settings.grace()) > 0 ? limit : settings.grace()) > 0) {
                if (store.finish(run.jobId(), run.scheduledAt(), "missed", now)) {
                    metrics.run(run.jobId(), "missed");
                    log.info("schedule - job {}: the run of {} was claimed but never started, and is now {} min late (misfire {}); "
                            + "recorded as missed", run.jobId(), local(job.get(), run.scheduledAt()), late.toMinutes(),
                            job.get().misfire().code());
                }
                continue;
            }
            submit(job.get(), run, now);
            n++;
        }
        return n;
    }

    private int settle(Instant now) {
        List<JobRun> done = store.settle(now, now.minus(settings.resumeWait()));
        for (JobRun r : done) {
            metrics.run(r.jobId(), r.outcome().startsWith(RESUMED) ? r.outcome().substring(RESUMED.length()) : r.outcome());
            log.info("schedule - job {}: the run of {} ended: {}", r.jobId(), r.scheduledAt(), r.outcome());
        }
        return done.size();
    }

    /**
     * Runs job {@code id} now, outside its schedule (the admin page's "run now"), paused or not; its user is
     * checked as at every run. Empty when there is no such job.
     */
    public Optional<Admission> runNow(String id) {
        Optional<Job> job = store.find(id);
        if (job.isEmpty()) {
            return Optional.empty();
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        JobRun run = new JobRun(id, now, JobRun.Kind.MANUAL, JobRun.State.CLAIMED, job.get().platform(), JobRun.messageId(id, now), null,
                now, now);
        if (!store.claimManual(run)) {
            return Optional.of(Admission.DUPLICATE);
        }
        return Optional.of(submit(job.get(), run, now));
    }

    private static String local(Job job, Instant t) {
        return LOCAL.format(ZonedDateTime.ofInstant(t, job.schedule().zone()));
    }

    private static String next(Job job, Instant next) {
        return next == null ? "none (the schedule has no more times)" : local(job, next);
    }

    /**
     * Stops ticking and waits up to 5 s for the loop to end; a tick in progress finishes (it is not interrupted, so
     * no claim is cut off between the store and the gateway). Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        stopping.countDown();
        Thread t = loop;
        if (t != null) {
            try {
                if (!t.join(Duration.ofSeconds(5))) {
                    log.warn("schedule - a pass over due jobs is still going 5,000 ms after the stop; left to finish (a claim it "
                            + "makes is submitted again at the next start)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
