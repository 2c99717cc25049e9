package dev.herald.web.access;

import dev.herald.core.account.ApiKey;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys in the pages: each account lists, makes and revokes its own ({@code /chat/api/keys...}; a new key is in the
 * answer once and never again); admins list every key with its use and revoke any ({@code /admin/api/keys...}). A key
 * id of someone else's answers 404, as one that does not exist.
 */
public final class KeyRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger("web");

    private final WebGuard guard;
    private final ApiKeys keys;
    private final Clock clock;

    public KeyRoutes(WebGuard guard, ApiKeys keys, Clock clock) {
        this.guard = guard;
        this.keys = keys;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "api-keys";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/chat/api/keys", guard.read(ctx -> list(ctx, account(ctx).name())));
        routes.post("/chat/api/keys/create", guard.write(this::create));
        routes.post("/chat/api/keys/revoke", guard.write(ctx -> revoke(ctx, account(ctx).name())));
        routes.get("/admin/api/keys", guard.read(ctx -> list(ctx, null)));
        routes.post("/admin/api/keys/revoke", guard.write(ctx -> revoke(ctx, null)));
    }

    private static WebUser account(Context ctx) {
        WebUser user = WebGuard.user(ctx);
        if (!user.account()) {
            throw new BadRequest(409, "API keys belong to accounts: make the first admin account (the admin page's Users panel) "
                    + "and sign in; until then the API uses platforms.api_server.key");
        }
        return user;
    }

    private void list(Context ctx, String owner) {
        keys.flush();
        List<Map<String, Object>> out = new ArrayList<>();
        for (ApiKey k : keys.accounts().keys(owner)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", k.id());
            m.put("owner", k.owner());
            m.put("label", k.label());
            m.put("createdAt", k.createdAt().toString());
            m.put("lastUsedAt", k.lastUsedAt() == null ? null : k.lastUsedAt().toString());
            m.put("uses", k.uses());
            m.put("revoked", k.revoked());
            out.add(m);
        }
        WebJson.write(ctx, 200, Map.of("keys", out));
    }

    private void create(Context ctx) {
        WebUser user = account(ctx);
        ApiKeys.Made made;
        try {
            made = keys.create(user.name(), WebJson.body(ctx).path("label").asText(""));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
        log.info("web - {} made API key {}", user.name(), made.key().id());
        WebJson.write(ctx, 200, Map.of("id", made.key().id(), "label", made.key().label(), "key", made.secret()));
    }

    private void revoke(Context ctx, String owner) {
        String id = WebJson.body(ctx).path("id").asText("");
        if (!id.matches("[a-z0-9]{10}") || !keys.accounts().revokeKey(id, owner, clock.instant())) {
            throw new BadRequest(404, "no such API key (or it is revoked already)");
        }
        log.info("web - {} revoked API key {}", WebGuard.user(ctx).name(), id);
        WebJson.write(ctx, 200, Map.of("status", "revoked", "id", id));
    }
}
