package dev.herald.web.access;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pages' login: {@code GET /auth/state} (is a key required, is this browser logged in),
 * {@code POST /auth/login} {@code {"key": "..."}} (sets the session cookie), {@code POST /auth/logout}.
 * A wrong key is logged without the presented text and counts against the client's {@link AuthThrottle}
 * (429 once it is used up); logout also ends the session token server-side.
 */
public final class AuthRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger(AuthRoutes.class);

    private final WebGuard guard;
    private final WebAccess access;

    public AuthRoutes(WebGuard guard) {
        this.guard = guard;
        this.access = guard.access();
    }

    @Override
    public String name() {
        return "auth";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/auth/state", guard.open(false, this::state));
        routes.post("/auth/login", guard.open(true, this::login));
        routes.post("/auth/logout", guard.open(true, this::logout));
    }

    private void state(Context ctx) {
        boolean loggedIn = !access.keyRequired() || access.validToken(ctx.cookie(WebAccess.COOKIE));
        WebJson.write(ctx, 200, Map.of("keyRequired", access.keyRequired(), "loggedIn", loggedIn));
    }

    private void login(Context ctx) {
        if (!access.keyRequired()) {
            WebJson.write(ctx, 200, Map.of("loggedIn", true, "keyRequired", false));
            return;
        }
        JsonNode body = WebJson.body(ctx);
        WebAccess.Verdict verdict = access.checkLogin(WebGuard.facts(ctx, true), body.path("key").asText(null));
        if (!verdict.allowed()) {
            WebGuard.refuse(ctx, verdict);
            return;
        }
        ctx.res().addHeader("Set-Cookie", WebAccess.cookie(access.issue(), WebGuard.secure(ctx)));
        log.info("web - login from {}", ctx.req().getRemoteAddr());
        WebJson.write(ctx, 200, Map.of("loggedIn", true, "keyRequired", true));
    }

    private void logout(Context ctx) {
        String token = ctx.cookie(WebAccess.COOKIE);
        if (token != null && access.keyRequired()) {
            access.revoke(token);
            log.info("web - logout from {}: the session is ended server-side", ctx.req().getRemoteAddr());
        }
        ctx.res().addHeader("Set-Cookie", WebAccess.expiredCookie(WebGuard.secure(ctx)));
        WebJson.write(ctx, 200, Map.of("loggedIn", false, "keyRequired", access.keyRequired()));
    }
}
