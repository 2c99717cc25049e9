package dev.herald.web.access;

import dev.herald.core.account.Identities;
import dev.herald.core.account.IdentityLinks;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Linked chats in the pages: each account lists its linked chat identities ({@code GET /chat/api/links}), links one with
 * the code {@code /link} gave in that chat ({@code POST /chat/api/links/add {"code"}}) and unlinks its own
 * ({@code POST /chat/api/links/remove {"identity"}}); admins list every link ({@code GET /admin/api/links}) and remove
 * any. Wrong codes are throttled per account like wrong passwords, and answered alike whether the code never existed,
 * expired or was used.
 */
public final class LinkRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger("web");

    private final WebGuard guard;
    private final Identities identities;
    private final AuthThrottle throttle;

    public LinkRoutes(WebGuard guard, Identities identities, AuthThrottle throttle) {
        this.guard = Objects.requireNonNull(guard, "guard");
        this.identities = Objects.requireNonNull(identities, "identities");
        this.throttle = Objects.requireNonNull(throttle, "throttle");
    }

    @Override
    public String name() {
        return "links";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/chat/api/links", guard.read(ctx -> list(ctx, account(ctx).name())));
        routes.post("/chat/api/links/add", guard.write(this::add));
        routes.post("/chat/api/links/remove", guard.write(ctx -> remove(ctx, account(ctx).name())));
        routes.get("/admin/api/links", guard.read(ctx -> list(ctx, null)));
        routes.post("/admin/api/links/remove", guard.write(ctx -> remove(ctx, null)));
    }

    private static WebUser account(Context ctx) {
        WebUser user = WebGuard.user(ctx);
        if (!user.account()) {
            throw new BadRequest(409, "linked chats belong to accounts: make the first admin account (the admin page's Users "
                    + "panel) and sign in");
        }
        return user;
    }

    private void list(Context ctx, String account) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (IdentityLinks.Link l : identities.links(account)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("identity", l.identity());
            m.put("account", l.account());
            m.put("linkedAt", l.linkedAt().toString());
            out.add(m);
        }
        WebJson.write(ctx, 200, Map.of("links", out));
    }

    private void add(Context ctx) {
        WebUser user = account(ctx);
        String subject = "account:" + user.name();
        String what = "link code of " + user.name();
        Duration wait = throttle.blockedFor(subject, what);
        if (!wait.isZero()) {
            ctx.header("Retry-After", Long.toString(wait.toSeconds()));
            throw new BadRequest(429, "too many wrong link codes; try again in " + wait.toSeconds() + " s");
        }
        String code = WebJson.body(ctx).path("code").asText("");
        switch (identities.redeem(user.name(), code)) {
            case Identities.Redeemed.Linked l -> WebJson.write(ctx, 200, Map.of("status", "linked", "identity", l.identity()));
            case Identities.Redeemed.Elsewhere e -> throw new BadRequest(409, e.identity() + " is linked to another account; "
                    + "send /link remove in that chat first, then /link for a new code");
            case Identities.Redeemed.Unknown u -> {
                throttle.failed(subject, what);
                throw new BadRequest(400, "that code is not valid (mistyped, used, or older than "
                        + Identities.CODE_TTL.toMinutes() + " minutes); send /link in the chat again for a new one");
            }
        }
    }

    private void remove(Context ctx, String account) {
        String identity = WebJson.body(ctx).path("identity").asText("");
        if (identity.isEmpty() || identity.length() > 300 || !identities.unlink(identity, account)) {
            throw new BadRequest(404, "no such linked chat");
        }
        log.info("web - {} unlinked {}", WebGuard.user(ctx).name(), identity);
        WebJson.write(ctx, 200, Map.of("status", "unlinked", "identity", identity));
    }
}
