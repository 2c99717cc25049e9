package dev.herald.web.access;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pages' sign-in: {@code GET /auth/state} (what this browser must do: nothing, enter the key, sign in with an
 * account, or make the first admin; and who it is), {@code POST /auth/login} ({@code {"name", "password"}} once
 * accounts exist, {@code {"key"}} before; sets the session cookie), {@code POST /auth/setup}
 * ({@code {"name", "password", "code"}}: the first admin, see {@link WebAccess#checkSetup}), {@code POST /auth/invite}
 * ({@code {"name", "code", "password"}}: an invitation taken, see {@link Invitations}), {@code POST /auth/password}
 * ({@code {"current", "password", "again"}}: a signed-in account changes its own password; its other sessions end and
 * this browser gets a new session cookie), {@code POST /auth/logout}.
 * Wrong keys, passwords and setup codes are logged without the presented text and count against the client's
 * {@link AuthThrottle} (429 once it is used up); logout also ends the session token server-side.
 */
public final class AuthRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger(AuthRoutes.class);

    private final WebGuard guard;
    private final WebAccess access;
    private final java.time.Clock clock;
    private volatile String oidcLabel;
    private volatile java.util.function.Function<String, Optional<String>> signOutElsewhere = name -> Optional.empty();

    public AuthRoutes(WebGuard guard) {
        this(guard, java.time.Clock.systemUTC());
    }

    public AuthRoutes(WebGuard guard, java.time.Clock clock) {
        this.guard = guard;
        this.access = guard.access();
        this.clock = clock;
    }

    @Override
    public String name() {
        return "auth";
    }

    /** Offers "Sign in with {@code label}" ({@code /auth/oidc/start}) on the sign-in form. */
    public void offerOidc(String label) {
        this.oidcLabel = label;
    }

    /**
     * Where a signed-out account's browser goes next, by account name (single sign-on's sign-out at the provider); the
     * logout's answer carries it as {@code signOutAt}, and the pages follow it. Before the server starts.
     */
    public void signOutElsewhere(java.util.function.Function<String, Optional<String>> where) {
        this.signOutElsewhere = java.util.Objects.requireNonNull(where, "where");
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/auth/state", guard.open(false, this::state));
        routes.post("/auth/login", guard.open(true, this::login));
        routes.post("/auth/setup", guard.open(true, this::setup));
        routes.post("/auth/invite", guard.open(true, this::invite));
        routes.post("/auth/logout", guard.open(true, this::logout));
        routes.post("/auth/password", guard.write(this::changePassword));
    }

    private void state(Context ctx) {
        WebAccess.Request facts = WebGuard.facts(ctx, false);
        Optional<WebUser> user = access.who(facts);
        boolean accounts = access.accounts().active();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("keyRequired", access.keyRequired() && !accounts);
        out.put("accounts", accounts);
        out.put("loggedIn", user.isPresent());
        out.put("setup", !access.accounts().adminExists());
        if (oidcLabel != null) {
            out.put("oidc", Map.of("label", oidcLabel, "start", "/auth/oidc/start"));
        }
        user.ifPresent(u -> out.put("user", Map.of("name", u.name(), "role", u.role(), "account", u.account(),
                "password", u.account() && access.accounts().accounts().find(u.name()).map(Account::passwordHash)
                        .filter(PasswordHash::isHash).isPresent())));
        WebJson.write(ctx, 200, out);
    }

    private void login(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        WebAccess.Request facts = WebGuard.facts(ctx, true);
        if (access.accounts().active()) {
            String name = body.path("name").asText("").strip().toLowerCase(java.util.Locale.ROOT);
            WebAccess.Verdict verdict = access.checkSignIn(facts, name, body.path("password").asText(null));
            if (!verdict.allowed()) {
                WebGuard.refuse(ctx, verdict);
                return;
            }
            signedIn(ctx, access.accounts().accounts().find(name).orElseThrow());
            return;
        }
        if (!access.keyRequired()) {
            WebJson.write(ctx, 200, Map.of("loggedIn", true, "keyRequired", false));
            return;
        }
        WebAccess.Verdict verdict = access.checkLogin(facts, body.path("key").asText(null));
        if (!verdict.allowed()) {
            WebGuard.refuse(ctx, verdict);
            return;
        }
        ctx.res().addHeader("Set-Cookie", WebAccess.cookie(access.issue(), WebGuard.secure(ctx)));
        log.info("web - login from {}", ctx.req().getRemoteAddr());
        WebJson.write(ctx, 200, Map.of("loggedIn", true, "keyRequired", true));
    }

    private void signedIn(Context ctx, Account account) {
        ctx.res().addHeader("Set-Cookie", WebAccess.cookie(access.accounts().issue(account), WebGuard.secure(ctx)));
        log.info("web - {} signed in from {}", account.name(), ctx.req().getRemoteAddr());
        WebJson.write(ctx, 200, Map.of("loggedIn", true, "user", Map.of("name", account.name(), "role", account.role().wire(), "account", true)));
    }

    private void setup(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        WebAccess.Verdict verdict = access.checkSetup(WebGuard.facts(ctx, true), body.path("code").asText(null));
        if (!verdict.allowed()) {
            WebGuard.refuse(ctx, verdict);
            return;
        }
        String name = body.path("name").asText("").strip().toLowerCase(java.util.Locale.ROOT);
        String password = body.path("password").asText("");
        Account admin;
        try {
            Account.checkName(name);
            admin = new Account(name, Role.ADMIN, PasswordHash.hash(password), false, clock.instant(), 0);
        } catch (IllegalArgumentException e) {
            throw new WebJson.BadRequest(400, e.getMessage());
        }
        if (!access.accounts().accounts().create(admin)) {
            throw new WebJson.BadRequest(409, "the name '" + name + "' is taken; pick another");
        }
        log.info("web - first admin account '{}' made from {}", name, ctx.req().getRemoteAddr());
        access.accounts().adminMade();
        signedIn(ctx, admin);
    }

    /** Takes an invitation: {@code {"name", "code", "password"}} sets the account's first password and signs it in. */
    private void invite(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String name = body.path("name").asText("").strip().toLowerCase(java.util.Locale.ROOT);
        WebAccess.Verdict verdict = access.checkInvite(WebGuard.facts(ctx, true), name, body.path("code").asText(null));
        if (!verdict.allowed()) {
            WebGuard.refuse(ctx, verdict);
            return;
        }
        String hash;
        try {
            hash = PasswordHash.hash(body.path("password").asText(""));
        } catch (IllegalArgumentException e) {
            throw new WebJson.BadRequest(400, e.getMessage());
        }
        Account invited = access.accounts().accounts().find(name).orElseThrow();
        if (!invited.invited() || !access.accounts().accounts().setPassword(name, hash)) {
            throw new WebJson.BadRequest(409, "this invitation was taken a moment ago; sign in with its password");
        }
        log.info("web - '{}' took their invitation from {}", name, ctx.req().getRemoteAddr());
        signedIn(ctx, access.accounts().accounts().find(name).orElseThrow());
    }

    /**
     * A signed-in account changes its own password: the current one (checked and throttled as a sign-in: a wrong one
     * counts against the client), the new one twice. Every session of the account ends (the epoch moves) and this
     * browser is signed in again with a new cookie. An account without a password (single sign-on) is told to change
     * it at its provider.
     */
    private void changePassword(Context ctx) {
        WebUser user = WebGuard.user(ctx);
        if (!user.account()) {
            throw new WebJson.BadRequest(400, access.accounts().active()
                    ? "this request is signed in with the configured key, which has no password to change; sign in with your account"
                    : "there are no accounts yet, so there is no password to change; the admin page makes the first one");
        }
        Account account = access.accounts().accounts().find(user.name())
                .orElseThrow(() -> new WebJson.BadRequest(401, "sign-in required: your account is gone"));
        if (!PasswordHash.isHash(account.passwordHash())) {
            String provider = oidcLabel == null ? "your single sign-on provider" : oidcLabel;
            throw new WebJson.BadRequest(409, "your account '" + account.name() + "' signs in through " + provider
                    + " and has no Herald password; change your password there");
        }
        JsonNode body = WebJson.body(ctx);
        String password = body.path("password").asText("");
        if (!password.equals(body.path("again").asText(""))) {
            throw new WebJson.BadRequest(400, "the two new passwords differ; type the same new password twice");
        }
        String hash;
        try {
            hash = PasswordHash.hash(password);
        } catch (IllegalArgumentException e) {
            throw new WebJson.BadRequest(400, "new password: " + e.getMessage());
        }
        WebAccess.Verdict verdict = access.checkSignIn(WebGuard.facts(ctx, true), account.name(), body.path("current").asText(null));
        if (verdict.status() == 401) {
            throw new WebJson.BadRequest(403, "your current password is not that one; the password was not changed");
        }
        if (!verdict.allowed()) {
            WebGuard.refuse(ctx, verdict);
            return;
        }
        if (!access.accounts().accounts().setPassword(account.name(), hash)) {
            throw new WebJson.BadRequest(401, "sign-in required: your account is gone");
        }
        log.info("web - {} changed their password from {} (their other sessions ended)", account.name(), ctx.req().getRemoteAddr());
        signedIn(ctx, access.accounts().accounts().find(account.name()).orElseThrow());
    }

    private void logout(Context ctx) {
        String token = ctx.cookie(WebAccess.COOKIE);
        Optional<String> next = Optional.empty();
        if (token != null) {
            Optional<WebUser> user = access.accounts().user(token).filter(WebUser::account);
            access.accounts().revoke(token);
            if (access.keyRequired()) {
                access.revoke(token);
            }
            log.info("web - logout from {}: the session is ended server-side", ctx.req().getRemoteAddr());
            next = user.flatMap(u -> signOutElsewhere.apply(u.name())); // after the session has ended: it may ask the provider
        }
        ctx.res().addHeader("Set-Cookie", WebAccess.expiredCookie(WebGuard.secure(ctx)));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("loggedIn", false);
        body.put("keyRequired", access.keyRequired() && !access.accounts().active());
        next.ifPresent(url -> body.put("signOutAt", url));
        WebJson.write(ctx, 200, body);
    }
}
