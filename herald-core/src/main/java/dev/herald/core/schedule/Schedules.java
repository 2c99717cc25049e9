package dev.herald.core.schedule;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Defining and managing jobs from a chat: the /schedule command, the agent's {@code schedule} tool and the
 * admin page all go through here, so the rules are in one place.
 *
 * <ul>
 *   <li>A job made in a chat runs in that chat as the person who made it (their identity is checked again
 *       at every run). Only a platform's admins may give another target: another chat, or {@code log}.</li>
 *   <li>A person manages (pauses, resumes, deletes) the jobs they made in that chat; admins manage any job.
 *       Configured jobs are managed only by admins, and the configuration wins again at the next start.</li>
 *   <li>A job is seen from its own chat only (and by admins): an id of another chat's job is answered as an id that
 *       names none, so a job's existence does not leak to another chat (each web chat conversation is a chat).</li>
 *   <li>A paused job that is resumed continues from now: what would have run while it was paused is not
 *       caught up.</li>
 *   <li>One person has at most {@value #MAX_PER_USER} jobs made from chats.</li>
 *   <li>A job may name a model profile ({@code models:}) and a tool list. A chat-made job keeps only the tools its
 *       platform's turns get ({@code agent.platform_tools}): scheduling never widens what a chat can reach. The agent
 *       applies the same intersection again at every run, so a later, narrower configuration narrows the job too.</li>
 * </ul>
 */
public final class Schedules {
    private static final Logger log = LoggerFactory.getLogger("schedule");
    /** Jobs one person may have made from chats (each is a turn on its schedule, and a label in /metrics). */
    public static final int MAX_PER_USER = 50;

    /**
     * What a person asks for.
     *
     * @param schedule the written schedule ({@link Schedule#parse})
     * @param prompt   what the agent is asked at each run
     * @param zone     the zone for local times; empty = the configured default
     * @param misfire  empty = {@code run_once}
     * @param target   {@code log} or {@code <platform>:<chat_id>[:<thread_id>]}; empty = this chat
     * @param model    a model profile by name; empty = the chat's
     * @param tools    tool names; empty = the platform's tools; an empty list = no tools
     */
    public record Draft(String schedule, String prompt, Optional<String> zone, Optional<Misfire> misfire, Optional<String> target,
            Optional<String> model, Optional<List<String>> tools) {
        public Draft {
            Objects.requireNonNull(schedule, "schedule");
            Objects.requireNonNull(prompt, "prompt");
            zone = zone == null ? Optional.empty() : zone;
            misfire = misfire == null ? Optional.empty() : misfire;
            target = target == null ? Optional.empty() : target.filter(t -> !t.isBlank());
            model = model == null ? Optional.empty() : model.map(String::strip).filter(m -> !m.isEmpty());
            tools = tools == null ? Optional.empty() : tools.map(List::copyOf);
        }

        /** A draft without a model profile or tool list. */
        public Draft(String schedule, String prompt, Optional<String> zone, Optional<Misfire> misfire, Optional<String> target) {
            this(schedule, prompt, zone, misfire, target, Optional.empty(), Optional.empty());
        }

        public static Draft of(String schedule, String prompt) {
            return new Draft(schedule, prompt, Optional.empty(), Optional.empty(), Optional.empty());
        }
    }

    private final ScheduleStore store;
    private final Clock clock;
    private final ZoneId defaultZone;
    private final Predicate<Platform> running;
    private final JobChoices choices;

    /**
     * @param defaultZone the zone of jobs that name none ({@code schedules.time_zone})
     * @param running     whether a platform runs in this Herald (a target must be one that does)
     * @param choices     the model profiles and tools a job may name
     */
    public Schedules(ScheduleStore store, Clock clock, ZoneId defaultZone, Predicate<Platform> running, JobChoices choices) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.defaultZone = Objects.requireNonNull(defaultZone, "defaultZone");
        this.running = Objects.requireNonNull(running, "running");
        this.choices = Objects.requireNonNull(choices, "choices");
    }

    /** Jobs that cannot name a model profile or tools. */
    public Schedules(ScheduleStore store, Clock clock, ZoneId defaultZone, Predicate<Platform> running) {
        this(store, clock, defaultZone, running, JobChoices.NONE);
    }

    public ZoneId defaultZone() {
        return defaultZone;
    }

    /**
     * Creates a job for {@code requester}'s chat (or, for an admin, the draft's target).
     *
     * @throws ScheduleException naming what is wrong, in words for the person who asked
     */
    public Job create(Draft draft, SessionSource requester, boolean admin, Definer by) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        ZoneId zone = draft.zone().map(z -> wrap(() -> Schedule.zone(z))).orElse(defaultZone);
        Schedule schedule = wrap(() -> Schedule.parse(draft.schedule(), zone, now));
        Instant next = schedule.nextAfter(now).orElseThrow(() -> new ScheduleException(
                "That time has passed (" + schedule.text() + "); give a time in the future."));
        String prompt = draft.prompt().strip();
        if (prompt.isEmpty()) {
            throw new ScheduleException("Say what the agent should do at each run, after the schedule.");
        }
        long theirs = store.list().stream().filter(j -> j.platform().equals(requester.platform()) && Objects.equals(j.source().userId(),
                requester.userId()) && j.definedBy() != Definer.CONFIG).count();
        if (theirs >= MAX_PER_USER) {
            throw new ScheduleException("You have " + theirs + " scheduled jobs, the most one person may have; delete one first "
                    + "(/schedule list shows them).");
        }
        String id = freeId();
        SessionSource source = draft.target().map(t -> targetFor(t, id, requester, admin)).orElse(requester);
        String who = requester.platform() + " user " + (requester.userId() == null ? "?" : requester.userId());
        String model = draft.model().map(this::profile).orElse(null);
        List<String> tools = draft.tools().map(t -> tools(t, source.platform())).orElse(null);
        Job job = wrap(() -> new Job(id, prompt, schedule, source, draft.misfire().orElse(Misfire.RUN_ONCE), Job.DEFAULT_CATCH_UP,
                true, by, who, now, now, next, null, null, null, model, tools));
        store.create(job);
        log.info("schedule - job {} created by {} ({}): {} in {}, next run {}{}", id, who, by.code(), schedule.text(), job.target(), next,
                job.hasOptions() ? " (" + Text.options(job) + ")" : "");
        return job;
    }

    /** The model profiles a job may name. */
    public List<String> profiles() {
        return choices.profiles();
    }

    private String profile(String name) {
        List<String> known = choices.profiles();
        if (!known.contains(name)) {
            throw new ScheduleException("There is no model profile '" + name + "'; " + (known.isEmpty() ? "this Herald has none to choose."
                    : "the profiles are " + String.join(", ", known) + "."));
        }
        return name;
    }

    /** The names a chat-made job keeps: every one must name a tool; those its platform's turns do not get are dropped. */
    private List<String> tools(List<String> wanted, Platform platform) {
        List<String> known = choices.tools();
        List<String> names = wanted.stream().map(String::strip).filter(t -> !t.isEmpty()).distinct().toList();
        for (String name : names) {
            if (!known.contains(name)) {
                throw new ScheduleException("There is no tool '" + name + "'; the tools are " + (known.isEmpty() ? "none"
                        : String.join(", ", known)) + ".");
            }
        }
        return choices.allowedOn(platform, names);
    }

    /** The jobs that deliver to {@code chat}'s chat (and thread). */
    public List<Job> forChat(SessionSource chat) {
        return store.list().stream().filter(j -> sameChat(j.source(), chat)).toList();
    }

    public List<Job> all() {
        return store.list();
    }

    public Optional<Job> find(String id) {
        return store.find(id);
    }

    /** Pauses a job; as {@code requester} (null: the operator, who may manage any job). */
    public Job pause(String id, SessionSource requester, boolean admin) {
        Job job = managed(id, requester, admin);
        Instant now = clock.instant();
        store.setEnabled(id, false, job.nextRunAt(), now);
        log.info("schedule - job {} paused by {}", id, by(requester));
        return job.withEnabled(false, job.nextRunAt(), now);
    }

    /** Resumes a paused job from now on (what it missed while paused is not caught up). */
    public Job resume(String id, SessionSource requester, boolean admin) {
        Job job = managed(id, requester, admin);
        Instant now = clock.instant();
        Instant next = job.schedule().nextAfter(now).orElse(null);
        store.setEnabled(id, true, next, now);
        log.info("schedule - job {} resumed by {}; next run {}", id, by(requester), next == null ? "none (its time has passed)" : next);
        return job.withEnabled(true, next, now);
    }

    public Job delete(String id, SessionSource requester, boolean admin) {
        Job job = managed(id, requester, admin);
        store.delete(id);
        log.info("schedule - job {} deleted by {}", id, by(requester));
        return job;
    }

    /** Whether {@code requester} may pause, resume or delete {@code job}. */
    public static boolean mayManage(Job job, SessionSource requester, boolean admin) {
        if (requester == null || admin) {
            return true;
        }
        return job.definedBy() != Definer.CONFIG && sameChat(job.source(), requester)
                && Objects.equals(job.source().userId(), requester.userId());
    }

    /**
     * Whether {@code requester} may know that {@code job} exists: its chat's jobs are in its /schedule list; admins and the
     * operator see every job. Anyone else naming the job's id is answered as for an id that names none.
     */
    public static boolean maySee(Job job, SessionSource requester, boolean admin) {
        return requester == null || admin || sameChat(job.source(), requester);
    }

    private Job managed(String id, SessionSource requester, boolean admin) {
        String key = id == null ? "" : id.strip();
        Job job = store.find(key).filter(j -> maySee(j, requester, admin))
                .orElseThrow(() -> new ScheduleException("There is no job " + key + "; /schedule list shows them."));
        if (!mayManage(job, requester, admin)) {
            throw new ScheduleException(job.definedBy() == Definer.CONFIG
                    ? "Job " + key + " comes from Herald's configuration; only an admin can change it."
                    : "Job " + key + " belongs to someone else; only its owner or an admin can change it.");
        }
        return job;
    }

    /** The source a job runs as, for an explicit target: only admins name one that is not this chat. */
    private SessionSource targetFor(String target, String id, SessionSource requester, boolean admin) {
        String t = target.strip();
        if (t.equals("log")) {
            requireAdmin(admin, t);
            return Targets.log(id, requester.userId());
        }
        String[] parts = t.split(":", 3);
        if (parts.length < 2 || parts[1].isBlank()) {
            throw new ScheduleException("The target must be log or <platform>:<chat_id>[:<thread_id>], was '" + t + "'.");
        }
        Platform platform = wrap(() -> Platform.of(parts[0]));
        String thread = parts.length == 3 ? parts[2] : null;
        if (platform.equals(requester.platform()) && parts[1].equals(requester.chatId()) && Objects.equals(thread, requester.threadId())) {
            return requester;
        }
        requireAdmin(admin, t);
        if (!running.test(platform)) {
            throw new ScheduleException("Platform " + platform + " is not running in this Herald; enable it or pick another target.");
        }
        return Targets.source(platform, parts[1], thread, platform.equals(requester.platform()) ? requester.userId() : null);
    }

    private static void requireAdmin(boolean admin, String target) {
        if (!admin) {
            throw new ScheduleException("Only admins can schedule a job for another chat (" + target + "); leave the target out to "
                    + "schedule it here.");
        }
    }

    private String freeId() {
        for (int i = 0; i < 20; i++) {
            String id = JobIds.next();
            if (store.find(id).isEmpty()) {
                return id;
            }
        }
        throw new ScheduleException("No free job id was found; try again.");
    }

    static boolean sameChat(SessionSource a, SessionSource b) {
        return a.platform().equals(b.platform()) && a.chatId().equals(b.chatId()) && Objects.equals(a.threadId(), b.threadId());
    }

    private static String by(SessionSource requester) {
        return requester == null ? "an operator" : requester.platform() + " user " + requester.userId();
    }

    private static <T> T wrap(java.util.function.Supplier<T> s) {
        try {
            return s.get();
        } catch (IllegalArgumentException e) {
            throw new ScheduleException(Text.withoutSubject(e.getMessage()));
        }
    }
}
