package dev.herald.web.admin;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.inbound.GatewayStatus;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.PurgeResult;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.web.Routes;
import dev.herald.web.TranscriptView;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import dev.herald.web.access.WebGuard;
import dev.herald.web.metrics.HeraldMetrics;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin page's JSON API, reading the same store and runtime status as {@code herald status}:
 *
 * <ul>
 *   <li>{@code GET /admin/api/status}: gateway state, uptime, platforms, figures (turns/min, active and
 *       waiting turns, claimed lanes, resume-pending count).</li>
 *   <li>{@code GET /admin/api/sessions?state=all|running|resume_pending|suspended|idle&q=TEXT&platform=ID&limit=N&offset=N}:
 *       sessions, newest activity first.</li>
 *   <li>{@code GET /admin/api/transcript?key=KEY}: the current transcript of one session.</li>
 *   <li>{@code POST /admin/api/sessions/suspend|unsuspend|clear-resume|resume-now|purge} {@code {"key": KEY}} and
 *       {@code POST /admin/api/restart}: the operator's actions.</li>
 * </ul>
 * Reads need what every data endpoint needs ({@link WebGuard#read}); actions are writes (same-origin rule).
 */
public final class AdminRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);
    private static final int RUNNING_SCAN = 1_000;

    /** The admin page counts undelivered replies up to this many (more shows as this number). */
    static final int UNDELIVERED_SCAN = 1_000;

    private final Gateway gateway;
    private final HeraldMetrics metrics;
    private final WebGuard guard;
    private final Clock clock;

    public AdminRoutes(Gateway gateway, HeraldMetrics metrics, WebGuard guard, Clock clock) {
        this.gateway = Objects.requireNonNull(gateway, "gateway");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.guard = Objects.requireNonNull(guard, "guard");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String name() {
        return "admin";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/admin/api/status", guard.read(this::status));
        routes.get("/admin/api/sessions", guard.read(this::sessions));
        routes.get("/admin/api/transcript", guard.read(this::transcript));
        routes.post("/admin/api/sessions/suspend", guard.write(ctx -> act(ctx, "suspend", gateway::suspend)));
        routes.post("/admin/api/sessions/clear-resume", guard.write(ctx -> act(ctx, "clear-resume", gateway::clearResumeMark)));
        routes.post("/admin/api/sessions/resume-now", guard.write(ctx -> act(ctx, "resume-now", gateway::resumeNow)));
        routes.post("/admin/api/sessions/unsuspend", guard.write(ctx -> act(ctx, "unsuspend", gateway::unsuspend)));
        routes.post("/admin/api/restart", guard.write(this::restart));
        routes.post("/admin/api/sessions/purge", guard.write(this::purge));
    }

    // ---- reads ----------------------------------------------------------------------------------

    // status: besides the figures, the last turn error in the operator's words ("lastError"), since chat users
    // are told only that the model is unavailable

    private void status(Context ctx) {
        GatewayStatus s = gateway.status();
        boolean storeUp = s.store().writable() || gateway.reads().readsWhileUnwritable(); // SQLite still reads
        Instant now = clock.instant();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("state", s.state().name().toLowerCase(Locale.ROOT));
        out.put("startedAt", s.startedAt() == null ? null : s.startedAt().toString());
        out.put("uptimeSeconds", s.startedAt() == null ? 0 : Math.max(0, Duration.between(s.startedAt(), now).toSeconds()));
        out.put("agent", s.agent());
        out.put("autoResume", s.autoResume());
        out.put("restoring", s.restoring());
        List<Map<String, Object>> platforms = new ArrayList<>();
        s.platforms().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> platforms.add(platform(e.getKey(), e.getValue())));
        out.put("platforms", platforms);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("turnsPerMinute", metrics.turnsLastMinute());
        figures.put("activeTurns", s.activeTurns());
        figures.put("waitingTurns", s.waitingTurns());
        figures.put("claimedLanes", s.claimedLanes());
        if (storeUp) { // an unreachable database would hold the page for the store's outage wait
            figures.put("resumePending", gateway.reads().resumePendingCount());
            figures.put("sessionsStored", gateway.reads().sessionCount());
            figures.put("undeliveredReplies", gateway.reads().turns(TurnState.AWAITING_DELIVERY, UNDELIVERED_SCAN).size());
        }
        out.put("figures", figures);
        out.put("store", store(s.store()));
        out.put("node", gateway.membership().id());
        out.put("nodes", storeUp ? nodes(now) : List.of());
        out.put("lastError", metrics.lastError().map(e -> Map.of("at", e.at().toString(), "session", e.session(), "detail", e.detail()))
                .orElse(null));
        WebJson.write(ctx, 200, out);
    }

    /** The store's health: whether it writes, since when not and why (the operator's words), and a warning such as low space. */
    private static Map<String, Object> store(dev.herald.core.session.StoreHealth h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("writable", h.writable());
        m.put("since", h.since() == null ? null : h.since().toString());
        m.put("problem", h.problem());
        m.put("warning", h.warning());
        return m;
    }

    /** Every node registered on the store that is not gone, and the three that left last (the database's clock). */
    private List<Map<String, Object>> nodes(Instant fallbackNow) {
        List<Map<String, Object>> out = new ArrayList<>();
        try {
            var registry = gateway.membership().store();
            Instant now = registry.now();
            for (var n : registry.list(3)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", n.id());
                m.put("state", n.state().code());
                m.put("process", n.describe());
                m.put("self", n.id().equals(gateway.membership().id()));
                m.put("sessions", n.sessions());
                m.put("runningTurns", n.runningTurns());
                m.put("heartbeatAgeSeconds", n.heartbeatAt() == null ? null : Math.max(0, Duration.between(n.heartbeatAt(), now).toSeconds()));
                m.put("leaseLeftSeconds", n.expiresAt() == null ? null : Duration.between(now, n.expiresAt()).toSeconds());
                m.put("successorOf", n.successorOf());
                out.add(m);
            }
        } catch (RuntimeException e) {
            log.warn("admin - the node registry could not be read: {}", e.toString());
        }
        return out;
    }

    private static Map<String, Object> platform(Platform p, PlatformRegistry.Connection c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", p.id());
        m.put("state", c.state().name().toLowerCase(Locale.ROOT));
        m.put("detail", c.detail());
        return m;
    }

    private void sessions(Context ctx) {
        String state = Optional.ofNullable(ctx.queryParam("state")).orElse("all").toLowerCase(Locale.ROOT);
        Optional<String> text = Optional.ofNullable(ctx.queryParam("q")).map(String::strip).filter(q -> !q.isEmpty());
        Optional<Platform> platform = Optional.ofNullable(ctx.queryParam("platform")).filter(p -> !p.isBlank()).map(AdminRoutes::platform);
        int limit = bounded(ctx.queryParam("limit"), 100, 1, 500);
        int offset = bounded(ctx.queryParam("offset"), 0, 0, 1_000_000);
        Set<SessionKey> running = runningKeys();
        List<SessionEntry> entries = switch (state) {
            case "running" -> runningEntries(running, text, platform, limit, offset);
            case "all", "resume_pending", "suspended", "idle" -> gateway.reads().sessions(
                    new SessionQuery(queryState(state), platform, text, limit, offset));
            default -> throw new BadRequest(400, "state must be one of all, running, resume_pending, suspended, idle; was '" + state + "'");
        };
        Instant now = clock.instant();
        List<SessionItem> items = entries.stream().map(e -> SessionItem.of(e, running.contains(e.key()), now)).toList();
        WebJson.write(ctx, 200, Map.of("sessions", items, "state", state, "limit", limit, "offset", offset));
    }

    private static SessionQuery.State queryState(String state) {
        return switch (state) {
            case "resume_pending" -> SessionQuery.State.RESUME_PENDING;
            case "suspended" -> SessionQuery.State.SUSPENDED;
            case "idle" -> SessionQuery.State.ACTIVE;
            default -> SessionQuery.State.ALL;
        };
    }

    private Set<SessionKey> runningKeys() {
        Set<SessionKey> keys = new LinkedHashSet<>();
        for (TurnRecord t : gateway.reads().turns(TurnState.RUNNING, RUNNING_SCAN)) {
            keys.add(t.sessionKey());
        }
        return keys;
    }

    private List<SessionEntry> runningEntries(Set<SessionKey> running, Optional<String> text, Optional<Platform> platform, int limit, int offset) {
        Predicate<SessionEntry> matches = e -> text.map(q -> e.key().value().toLowerCase(Locale.ROOT).contains(q.toLowerCase(Locale.ROOT))).orElse(true)
                && platform.map(p -> p.equals(e.platform())).orElse(true);
        return running.stream().map(k -> gateway.reads().session(k)).flatMap(Optional::stream).filter(matches)
                .skip(offset).limit(limit).toList();
    }

    private void transcript(Context ctx) {
        SessionKey key = key(ctx.queryParam("key"));
        SessionEntry entry = gateway.reads().session(key)
                .orElseThrow(() -> new BadRequest(404, "no session with key '" + key + "'"));
        String sessionId = gateway.reads().transcriptTip(entry.sessionId());
        List<TranscriptView.Row> rows = TranscriptView.rows(gateway.reads().transcript(sessionId), 0, 1_000, 4_000);
        WebJson.write(ctx, 200, Map.of("key", key.value(), "sessionId", sessionId, "rows", rows,
                "session", SessionItem.of(entry, runningKeys().contains(key), clock.instant())));
    }

    // ---- actions --------------------------------------------------------------------------------

    private interface Action {
        boolean apply(SessionKey key);
    }

    private void act(Context ctx, String name, Action action) {
        JsonNode body = WebJson.body(ctx);
        SessionKey key = key(body.path("key").asText(null));
        if (gateway.reads().session(key).isEmpty()) {
            throw new BadRequest(404, "no session with key '" + key + "'");
        }
        boolean done = action.apply(key);
        log.info("admin - {} on {} from {}: {}", name, key, ctx.req().getRemoteAddr(), done ? "done" : "nothing to do");
        WebJson.write(ctx, done ? 200 : 409, Map.of("action", name, "key", key.value(), "done", done,
                "message", done ? name + " done" : message(name)));
    }

    private static String message(String action) {
        return switch (action) {
            case "clear-resume" -> "the session has no resume mark";
            case "resume-now" -> "the session cannot be resumed now (not resume-pending, its lane is busy, or the gateway is not running)";
            case "unsuspend" -> "the session is not suspended";
            default -> "the session could not be suspended";
        };
    }

    private void restart(Context ctx) {
        log.info("admin - restart requested from {}", ctx.req().getRemoteAddr());
        gateway.requestRestart();
        WebJson.write(ctx, 202, Map.of("status", "restarting", "message", "Herald drains running turns, then restarts"));
    }

    // ---- parameters -----------------------------------------------------------------------------

    private static SessionKey key(String value) {
        if (value == null || value.isBlank()) {
            throw new BadRequest(400, "key is required (a session key such as agent:main:webchat:dm:abc123)");
        }
        try {
            return new SessionKey(value);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, "key is not a valid session key: " + e.getMessage());
        }
    }

    private static Platform platform(String id) {
        try {
            return Platform.of(id.strip());
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
    }

    private static int bounded(String value, int fallback, int min, int max) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Math.max(min, Math.min(max, Integer.parseInt(value.strip())));
        } catch (NumberFormatException e) {
            throw new BadRequest(400, "expected a whole number, was '" + value + "'");
        }
    }

    /**
     * Purge: the session's transcripts, turns and model choice are deleted for good (the store refuses while a turn of it
     * is not finished or it is resume-pending: 409 with the reason). The log line names the session and the counts,
     * never a message's text.
     */
    private void purge(Context ctx) {
        SessionKey key = key(WebJson.body(ctx).path("key").asText(null));
        PurgeResult result = gateway.purge(key);
        String from = ctx.req().getRemoteAddr();
        switch (result) {
            case PurgeResult.NoSuchSession none -> throw new BadRequest(404, "no session with key '" + key + "'");
            case PurgeResult.Refused refused -> {
                log.info("admin - purge of {} from {} refused: {}", key, from, refused.reason());
                WebJson.write(ctx, 409, Map.of("action", "purge", "key", key.value(), "done", false, "message", refused.reason()));
            }
            case PurgeResult.Purged p -> {
                log.info("admin - purged {} from {}: {} transcript(s), {} message(s), {} turn(s) deleted for good", key, from,
                        p.transcripts(), p.messages(), p.turns());
                WebJson.write(ctx, 200, Map.of("action", "purge", "key", key.value(), "done", true, "message",
                        "purged: " + p.transcripts() + " transcript(s), " + p.messages() + " message(s) and " + p.turns()
                                + " turn(s) deleted for good", "transcripts", p.transcripts(), "messages", p.messages(), "turns", p.turns()));
            }
        }
    }
}
