package dev.herald.web.access;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import dev.herald.core.account.Identities;
import dev.herald.core.account.IdentityLinks;
import dev.herald.core.account.Role;
import dev.herald.core.turn.SenderUsage;
import dev.herald.core.turn.TurnStore;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import dev.herald.web.WebJson.BadRequest;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin page's users panel ({@code /admin/api/users...}, admins only: {@link WebGuard#adminOnly}): list (with each
 * account's turns and model tokens today and over the last {@value #USAGE_DAYS} days, its linked chats' included), create, disable or enable, reset
 * a password, and sign out everywhere. Every change that must end sessions moves the
 * account's session epoch ({@link Accounts}), so its open pages get 401 at their next request, on every node.
 * Passwords are never echoed or logged.
 */
public final class UserRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger("web");

    /** The window of the usage figures, besides today (UTC). */
    static final int USAGE_DAYS = 30;

    private final WebGuard guard;
    private final Accounts accounts;
    private final TurnStore turns;
    private final IdentityLinks links;
    private final Clock clock;

    /**
     * @param turns where each account's usage is counted
     * @param links the chat identities linked to accounts, whose turns count as theirs
     */
    public UserRoutes(WebGuard guard, TurnStore turns, IdentityLinks links, Clock clock) {
        this.guard = guard;
        this.accounts = guard.access().accounts().accounts();
        this.turns = turns;
        this.links = links;
        this.clock = clock;
    }

    /** Whose turns are the account's ({@link Identities#senders}), from {@code linked}: every link, read once per list. */
    static List<SenderUsage.Sender> identities(Account account, Map<String, List<IdentityLinks.Link>> linked) {
        return Identities.senders(account.name(), linked.getOrDefault(account.name(), List.of()));
    }

    @Override
    public String name() {
        return "users";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/admin/api/users", guard.read(this::list));
        routes.post("/admin/api/users/create", guard.write(this::create));
        routes.post("/admin/api/users/invite", guard.write(this::invite));
        routes.post("/admin/api/users/disable", guard.write(ctx -> disable(ctx, true)));
        routes.post("/admin/api/users/enable", guard.write(ctx -> disable(ctx, false)));
        routes.post("/admin/api/users/reset", guard.write(this::reset));
        routes.post("/admin/api/users/sign-out", guard.write(this::signOut));
    }

    private void list(Context ctx) {
        List<Account> all = accounts.list();
        Map<String, List<IdentityLinks.Link>> linked = new java.util.HashMap<>();
        links.links(null).forEach(l -> linked.computeIfAbsent(l.account(), k -> new ArrayList<>()).add(l));
        Map<String, List<SenderUsage.Sender>> identities = new LinkedHashMap<>();
        all.forEach(a -> identities.put(a.name(), identities(a, linked)));
        Instant now = clock.instant();
        Map<String, SenderUsage> usage = turns.usage(identities, now.truncatedTo(ChronoUnit.DAYS), now.minus(Duration.ofDays(USAGE_DAYS)));
        List<Map<String, Object>> out = new ArrayList<>();
        for (Account a : all) {
            Map<String, Object> u = new LinkedHashMap<>();
            u.put("name", a.name());
            u.put("role", a.role().wire());
            u.put("disabled", a.disabled());
            if (a.invited()) {
                java.time.Instant until = Invitations.expiresAt(a);
                u.put("invitedUntil", until == null ? null : until.toString());
            }
            u.put("createdAt", a.createdAt().toString());
            SenderUsage used = usage.getOrDefault(a.name(), SenderUsage.NONE);
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("today", figure(used.turnsToday(), used.inputToday(), used.outputToday()));
            figures.put("last" + USAGE_DAYS + "Days", figure(used.turns(), used.input(), used.output()));
            u.put("usage", figures);
            out.add(u);
        }
        WebJson.write(ctx, 200, Map.of("users", out));
    }

    private static Map<String, Long> figure(long turns, long input, long output) {
        Map<String, Long> f = new LinkedHashMap<>();
        f.put("turns", turns);
        f.put("inputTokens", input);
        f.put("outputTokens", output);
        return f;
    }

    private void create(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String name = name(body);
        Account account;
        try {
            Role role = Role.of(body.path("role").asText("user"));
            account = new Account(name, role, PasswordHash.hash(body.path("password").asText("")), false, clock.instant(), 0);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
        if (!accounts.create(account)) {
            throw new BadRequest(409, "the name '" + name + "' is taken; pick another");
        }
        log.info("web - {} made the {} account '{}'", WebGuard.user(ctx).name(), account.role().wire(), name);
        if (account.admin()) {
            guard.access().accounts().adminMade();
        }
        WebJson.write(ctx, 200, Map.of("status", "created", "name", name, "role", account.role().wire()));
    }

    /**
     * Invites {@code name} with {@code role}: the account is made (or its earlier invitation replaced) with no password,
     * and the answer carries the link's path once. An account that has a password is not invited again (409).
     */
    private void invite(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String name = name(body);
        Role role;
        try {
            role = Role.of(body.path("role").asText("user"));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
        Invitations.Invitation invitation = Invitations.create(clock.instant());
        java.util.Optional<Account> existing = accounts.find(name);
        if (existing.isPresent()) {
            if (!existing.get().invited() || existing.get().role() != role) {
                throw new BadRequest(409, existing.get().invited()
                        ? "'" + name + "' is invited as " + existing.get().role().wire() + "; invite them again with that role"
                        : "the name '" + name + "' is taken; pick another, or reset that account's password");
            }
            accounts.setPassword(name, invitation.passwordHash());
        } else if (!accounts.create(new Account(name, role, invitation.passwordHash(), false, clock.instant(), 0))) {
            throw new BadRequest(409, "the name '" + name + "' is taken; pick another");
        }
        log.info("web - {} invited '{}' as {} (the link works until {})", WebGuard.user(ctx).name(), name, role.wire(),
                invitation.expiresAt());
        if (role == Role.ADMIN) {
            guard.access().accounts().adminMade();
        }
        WebJson.write(ctx, 200, Map.of("status", "invited", "name", name, "role", role.wire(), "link", invitation.link(name),
                "expiresAt", invitation.expiresAt().toString()));
    }

    private void disable(Context ctx, boolean disabled) {
        String name = name(WebJson.body(ctx));
        if (disabled && name.equals(WebGuard.user(ctx).name()) && WebGuard.user(ctx).account()) {
            throw new BadRequest(400, "you cannot disable your own account; another admin can");
        }
        found(accounts.setDisabled(name, disabled), name);
        log.info("web - {} {} the account '{}'{}", WebGuard.user(ctx).name(), disabled ? "disabled" : "enabled", name,
                disabled ? " (its sessions ended)" : "");
        WebJson.write(ctx, 200, Map.of("status", disabled ? "disabled" : "enabled", "name", name));
    }

    private void reset(Context ctx) {
        JsonNode body = WebJson.body(ctx);
        String name = name(body);
        String hash;
        try {
            hash = PasswordHash.hash(body.path("password").asText(""));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
        found(accounts.setPassword(name, hash), name);
        log.info("web - {} reset the password of '{}' (its sessions ended)", WebGuard.user(ctx).name(), name);
        WebJson.write(ctx, 200, Map.of("status", "reset", "name", name));
    }

    private void signOut(Context ctx) {
        String name = name(WebJson.body(ctx));
        found(accounts.endSessions(name), name);
        log.info("web - {} signed '{}' out everywhere", WebGuard.user(ctx).name(), name);
        WebJson.write(ctx, 200, Map.of("status", "signed-out", "name", name));
    }

    private static String name(JsonNode body) {
        String name = body.path("name").asText("").strip().toLowerCase(Locale.ROOT);
        try {
            return Account.checkName(name);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
    }

    private static void found(boolean changed, String name) {
        if (!changed) {
            throw new BadRequest(404, "no account is named '" + name + "'");
        }
    }
}
