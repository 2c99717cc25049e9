package dev.herald.web.access;

import dev.herald.core.agent.ToolOrigin;
import io.javalin.http.Context;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses, on every route, a request sent by one of Herald's own tools ({@link ToolOrigin#HEADER}): the agent's
 * fetches must never reach the admin API, the web chat, the API or the metrics, even when the operator allows
 * loopback in {@code agent.http_allow}. Answers 403 with a JSON error before any other handler runs.
 */
public final class ToolOriginFilter {
    private static final Logger log = LoggerFactory.getLogger("web");
    private static final AtomicLong refused = new AtomicLong();

    private ToolOriginFilter() {
    }

    /** A Javalin before-handler. */
    public static void refuseToolRequests(Context ctx) {
        String origin = ctx.header(ToolOrigin.HEADER);
        if (origin == null) {
            return;
        }
        long count = refused.incrementAndGet();
        log.warn("web - refused {} {} from {}: it carries {} ({}); Herald's tools may not call Herald ({} refused so far); answering 403",
                ctx.method(), ctx.path(), ctx.ip(), ToolOrigin.HEADER,
                ToolOrigin.isOwn(origin) ? "this process's tools" : "another Herald's tools", count);
        ctx.status(403).contentType("application/json").result("{\"error\":{\"message\":\"Herald's own tools may not call Herald's "
                + "web server (request carries " + ToolOrigin.HEADER + ")\",\"type\":\"forbidden\",\"code\":\"tool_origin\"}}");
        ctx.skipRemainingHandlers();
    }
}
