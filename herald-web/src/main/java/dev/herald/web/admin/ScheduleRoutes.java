package dev.herald.web.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.Admission;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.ScheduleException;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin page's scheduled jobs: {@code GET /admin/api/schedules} (every job with its next run and last
 * result) and {@code POST /admin/api/schedules/pause|resume|delete|run-now} {@code {"id": ID}}. The operator
 * may act on any job; a configured job that is paused or deleted here comes back at the next start (the
 * configuration wins). "Run now" runs the job once outside its schedule, as its user (who must still be
 * allowed).
 */
public final class ScheduleRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger(ScheduleRoutes.class);

    private final Schedules schedules;
    private final Scheduler scheduler;
    private final WebGuard guard;

    public ScheduleRoutes(Schedules schedules, Scheduler scheduler, WebGuard guard) {
        this.schedules = Objects.requireNonNull(schedules, "schedules");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.guard = Objects.requireNonNull(guard, "guard");
    }

    @Override
    public String name() {
        return "schedules";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/admin/api/schedules", guard.read(this::list));
        routes.post("/admin/api/schedules/pause", guard.write(ctx -> act(ctx, "pause")));
        routes.post("/admin/api/schedules/resume", guard.write(ctx -> act(ctx, "resume")));
        routes.post("/admin/api/schedules/delete", guard.write(ctx -> act(ctx, "delete")));
        routes.post("/admin/api/schedules/run-now", guard.write(this::runNow));
    }

    private void list(Context ctx) {
        List<Map<String, Object>> jobs = schedules.all().stream().map(ScheduleRoutes::item).toList();
        WebJson.write(ctx, 200, Map.of("jobs", jobs));
    }

    static Map<String, Object> item(Job j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", j.id());
        m.put("schedule", j.schedule().text());
        m.put("timeZone", j.schedule().zone().getId());
        m.put("target", j.target());
        m.put("user", j.source().userId());
        m.put("status", j.status());
        m.put("nextRunAt", j.nextRunAt() == null ? null : j.nextRunAt().toString());
        m.put("lastRunAt", j.lastRunAt() == null ? null : j.lastRunAt().toString());
        m.put("lastOutcome", j.lastOutcome());
        m.put("misfire", j.misfire().code());
        m.put("definedBy", j.definedBy().code());
        m.put("createdBy", j.createdBy());
        m.put("prompt", j.prompt());
        m.put("model", j.model());
        m.put("tools", j.tools());
        return m;
    }

    private void act(Context ctx, String action) {
        String id = id(ctx);
        Job job;
        try {
            job = switch (action) {
                case "pause" -> schedules.pause(id, null, true);
                case "resume" -> schedules.resume(id, null, true);
                default -> schedules.delete(id, null, true);
            };
        } catch (ScheduleException e) {
            throw new BadRequest(404, e.getMessage());
        }
        log.info("admin - schedule {} on {} from {}", action, id, ctx.req().getRemoteAddr());
        WebJson.write(ctx, 200, Map.of("action", action, "id", id, "done", true, "job", item(job)));
    }

    private void runNow(Context ctx) {
        String id = id(ctx);
        Optional<Admission> a = scheduler.runNow(id);
        if (a.isEmpty()) {
            throw new BadRequest(404, "There is no job " + id + ".");
        }
        log.info("admin - schedule run-now on {} from {}: {}", id, ctx.req().getRemoteAddr(), a.get());
        boolean started = a.get() == Admission.ACCEPTED;
        WebJson.write(ctx, started ? 202 : 409, Map.of("action", "run-now", "id", id, "done", started, "message", switch (a.get()) {
            case ACCEPTED -> "started; its answer goes to " + schedules.find(id).map(Job::target).orElse("its chat");
            case REFUSED -> "refused: the job's user is not allowed to talk to the agent any more";
            case REJECTED_STOPPING -> "Herald is stopping; run it again once it is back";
            case REJECTED_UNAVAILABLE -> "the store cannot write now; run it again once it can (the status shows why)";
            default -> "a run of this job was started at this moment already";
        }));
    }

    private static String id(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String id = body.path("id").asText("").strip();
        if (id.isEmpty()) {
            throw new BadRequest(400, "id is required (a job id as the list shows it)");
        }
        return id;
    }
}
