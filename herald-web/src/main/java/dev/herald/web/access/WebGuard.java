package dev.herald.web.access;

import dev.herald.web.WebJson;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps the web pages' handlers in the {@link WebAccess} decision and one error shape: a refused request
 * gets its status and a JSON {@code {"error": ...}}; a {@link WebJson.BadRequest} its own status; anything
 * else 500 with a log line (the response names no internals).
 */
public final class WebGuard {
    private static final Logger log = LoggerFactory.getLogger(WebGuard.class);

    private final WebAccess access;

    public WebGuard(WebAccess access) {
        this.access = Objects.requireNonNull(access, "access");
    }

    public WebAccess access() {
        return access;
    }

    /** A page or login endpoint: the loopback rule only (and the same-origin rule when it changes state). */
    public Handler open(boolean stateChanging, Handler handler) {
        return ctx -> run(ctx, access.checkPublic(facts(ctx, stateChanging)), handler);
    }

    /** A read of data: the loopback rule, then a session (or the bearer key) when a key is configured. */
    public Handler read(Handler handler) {
        return ctx -> run(ctx, access.check(facts(ctx, false)), handler);
    }

    /** A state-changing request: everything {@link #read} checks, plus the same-origin rule. */
    public Handler write(Handler handler) {
        return ctx -> run(ctx, access.check(facts(ctx, true)), handler);
    }

    /** True when the request arrived over TLS (directly or through a proxy that says so). */
    public static boolean secure(Context ctx) {
        return "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
    }

    public static WebAccess.Request facts(Context ctx, boolean stateChanging) {
        String auth = ctx.header("Authorization");
        String bearer = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7) : null;
        return new WebAccess.Request(ctx.req().getRemoteAddr(), ctx.header("Host"), ctx.header("Origin"), ctx.header("Sec-Fetch-Site"),
                ctx.cookie(WebAccess.COOKIE), ctx.header(WebAccess.CSRF_HEADER), bearer, stateChanging, ctx.scheme(),
                ctx.header("X-Forwarded-For"), ctx.header("Forwarded"), ctx.method() + " " + ctx.path());
    }

    /** Answers a refusal: its status, {@code Retry-After} for 429, and {@code {"error": ...}}. */
    static void refuse(Context ctx, WebAccess.Verdict verdict) {
        if (verdict.retryAfter() != null) {
            ctx.header("Retry-After", Long.toString(Math.max(1, verdict.retryAfter().toSeconds())));
        }
        WebJson.error(ctx, verdict.status(), verdict.message());
    }

    /** The request attribute holding who a guarded request is ({@link #user}). */
    private static final String USER = "herald.webUser";

    /** Who a guarded request is (set before its handler runs). */
    public static WebUser user(Context ctx) {
        WebUser u = ctx.attribute(USER);
        if (u == null) {
            throw new IllegalStateException("web - " + ctx.path() + " is not behind the guard, so nobody is known");
        }
        return u;
    }

    /** The admin's paths: the admin page's API and the metrics. Accounts without the admin role get 403 there. */
    static boolean adminOnly(String path) {
        return path.startsWith("/admin/") || path.equals("/metrics") || path.startsWith("/metrics/");
    }

    private static void run(Context ctx, WebAccess.Verdict verdict, Handler handler) {
        if (verdict.allowed() && verdict.user() != null && !verdict.user().admin() && adminOnly(ctx.path())) {
            verdict = new WebAccess.Verdict(403, "this is for admins; your account (" + verdict.user().name() + ") is a user account",
                    null, null);
        }
        if (verdict.allowed() && verdict.user() != null) {
            ctx.attribute(USER, verdict.user());
        }
        if (!verdict.allowed()) {
            if (verdict.status() == 403) {
                log.info("web - {} {} from {} refused: {}", ctx.method(), ctx.path(), ctx.req().getRemoteAddr(), verdict.message());
            }
            refuse(ctx, verdict);
            return;
        }
        try {
            handler.handle(ctx);
        } catch (WebJson.BadRequest e) {
            WebJson.error(ctx, e.status(), e.getMessage());
        } catch (Exception e) {
            if (dev.herald.core.session.StoreException.isOutage(e)) {
                log.info("web - {} {} answered 503: the store cannot write ({})", ctx.method(), ctx.path(), e.getMessage());
                ctx.header("Retry-After", "10");
                WebJson.error(ctx, 503, dev.herald.core.UserErrors.storeUnavailable());
                return;
            }
            log.warn("web - {} {} failed unexpectedly; answered 500", ctx.method(), ctx.path(), e);
            WebJson.error(ctx, 500, dev.herald.core.UserErrors.REQUEST_FAILED);
        }
    }
}
