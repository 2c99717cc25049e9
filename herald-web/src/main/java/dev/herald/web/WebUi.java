package dev.herald.web;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.web.access.AccountSessions;
import dev.herald.web.access.AuthRoutes;
import dev.herald.web.access.SessionSecret;
import dev.herald.web.access.SessionRevocations;
import dev.herald.web.access.WebAccess;
import dev.herald.web.access.WebGuard;
import dev.herald.web.admin.AdminRoutes;
import dev.herald.web.chat.UnownedConversations;
import dev.herald.web.chat.WebChatPlatform;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MetricsRoutes;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * The browser side of Herald on one {@link WebServer}: the web chat ({@code /}), the admin page
 * ({@code /admin}), their login ({@code /auth/...}), {@code /metrics} and {@code /health/ready}.
 *
 * <p>Two steps, because the chat is a platform the gateway must know when it is built, while the admin
 * API and the metrics read the gateway: {@link #create} (before the gateway; gives {@link #chat()} to
 * register as an adapter), then {@link #attach} (after it). Both before the server starts.
 */
public final class WebUi {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger("web");
    private final WebServer server;
    private final WebGuard guard;
    private final Optional<WebChatPlatform> chat;
    private final HeraldMetrics metrics;
    private final Clock clock;
    private boolean attached;

    private final dev.herald.web.access.ApiKeys apiKeys;
    private final Storage storage;
    private final AuthRoutes auth;

    private WebUi(WebServer server, WebGuard guard, Optional<WebChatPlatform> chat, HeraldMetrics metrics, Clock clock,
            dev.herald.web.access.ApiKeys apiKeys, Storage storage, AuthRoutes auth) {
        this.apiKeys = apiKeys;
        this.storage = storage;
        this.auth = auth;
        this.server = server;
        this.guard = guard;
        this.chat = chat;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * Adds the pages, the login and (when {@code withChat}) the web chat to {@code server}.
     *
     * @param key      the configured key ({@code platforms.api_server.key}), or null: then only this machine is served
     * @param withChat serve the web chat at {@code /} ({@code platforms.webchat.enabled}); the admin page is served either way
     */
    public static WebUi create(WebServer server, String key, Storage storage, SessionKey.KeyPolicy keyPolicy, HeraldMetrics metrics,
            Clock clock, boolean withChat) {
        return create(server, key, SessionRevocations.inMemory(), storage, keyPolicy, metrics, clock, withChat);
    }

    /**
     * The web UI, remembering logged-out sessions in {@code revocations} (the app keeps them in a file under
     * the home, so a logout survives a restart).
     */
    public static WebUi create(WebServer server, String key, SessionRevocations revocations, Storage storage,
            SessionKey.KeyPolicy keyPolicy, HeraldMetrics metrics, Clock clock, boolean withChat) {
        Objects.requireNonNull(server, "server");
        AccountSessions accounts = new AccountSessions(storage.accounts(), SessionSecret.of(storage.platformState()), clock, revocations);
        WebGuard guard = new WebGuard(new WebAccess(key, clock, server.authThrottle(), revocations, accounts));
        server.add(new PageRoutes(guard, withChat));
        AuthRoutes auth = new AuthRoutes(guard, clock);
        server.add(auth);
        server.add(new dev.herald.web.access.UserRoutes(guard, storage.turns(), storage.identityLinks(), clock));
        dev.herald.web.access.ApiKeys apiKeys = new dev.herald.web.access.ApiKeys(storage.accounts(), clock,
                Objects.requireNonNull(metrics, "metrics").registry());
        server.add(new dev.herald.web.access.KeyRoutes(guard, apiKeys, clock));
        if (!accounts.adminExists()) {
            log.info("web - no admin account yet: open the web page from this machine to make the first one, from elsewhere with "
                    + "the one-time setup code {} (valid until an admin exists, new at every start), or run 'herald users add NAME "
                    + "--role admin'", accounts.setupCode());
        }
        accounts.onAdminMade(() -> UnownedConversations.giveToFirstAdmin(storage));
        try {
            UnownedConversations.giveToFirstAdmin(storage);
        } catch (RuntimeException e) {
            log.warn("web - the conversations from before accounts could not be given to the first admin now (done again when an "
                    + "admin is made, and at the next start): {}", e.toString());
        }
        Optional<WebChatPlatform> chat = withChat ? Optional.of(new WebChatPlatform(storage, keyPolicy, guard, server, clock)) : Optional.empty();
        return new WebUi(server, guard, chat, metrics, clock, apiKeys, storage, auth);
    }

    /** The web UI with the chat ({@link #create(WebServer, String, Storage, SessionKey.KeyPolicy, HeraldMetrics, Clock, boolean)}). */
    public static WebUi create(WebServer server, String key, Storage storage, SessionKey.KeyPolicy keyPolicy, HeraldMetrics metrics,
            Clock clock) {
        return create(server, key, storage, keyPolicy, metrics, clock, true);
    }

    /** Adds the admin API and the metrics for {@code gateway}, and binds the metrics' gauges to its status. */
    public synchronized WebUi attach(Gateway gateway) {
        if (attached) {
            throw new IllegalStateException("web - the web UI is already attached to a gateway");
        }
        attached = true;
        metrics.bind(gateway::status);
        server.add(new AdminRoutes(gateway, metrics, guard, clock));
        server.add(new dev.herald.web.admin.ExportRoutes(gateway, guard));
        server.add(new MetricsRoutes(metrics, gateway::status, guard));
        return this;
    }

    /**
     * Adds sign-in with the company's OpenID Connect provider ({@code /auth/oidc/...}) and its button on the sign-in
     * form; before the server starts. The provider is first asked when somebody clicks the button.
     */
    public WebUi useOidc(dev.herald.web.oidc.OidcSettings settings) {
        dev.herald.web.oidc.OidcProvider provider = new dev.herald.web.oidc.OidcProvider(settings, clock);
        dev.herald.web.oidc.OidcAccounts accounts = new dev.herald.web.oidc.OidcAccounts(settings, storage.accounts(),
                storage.platformState(), clock);
        dev.herald.web.oidc.OidcRoutes routes = new dev.herald.web.oidc.OidcRoutes(settings, guard, provider, accounts,
                SessionSecret.of(storage.platformState()), clock);
        server.add(routes);
        auth.offerOidc(settings.label());
        // an account made by single sign-on (it has no password) signs out at the provider too, when configured
        auth.signOutElsewhere(name -> storage.accounts().find(name)
                .filter(a -> dev.herald.web.oidc.OidcAccounts.NO_PASSWORD.equals(a.passwordHash()))
                .flatMap(a -> routes.signOutUrl()));
        log.info("web - sign-in with {} through {} (redirect URI {})", settings.label(), settings.issuer(), settings.redirectUri());
        return this;
    }

    /**
     * Adds linked chats ({@code /chat/api/links...}, {@code /admin/api/links...}) and returns the chat command that gives
     * the codes ({@code /link}); before the server starts.
     */
    public dev.herald.web.access.LinkCommand useIdentities(dev.herald.core.account.Identities identities) {
        server.add(new dev.herald.web.access.LinkRoutes(guard, identities, server.authThrottle()));
        return new dev.herald.web.access.LinkCommand(identities);
    }

    /** Adds the admin page's scheduled jobs ({@code /admin/api/schedules}); before the server starts. */
    public WebUi attachSchedules(dev.herald.core.schedule.Schedules schedules, dev.herald.core.schedule.Scheduler scheduler) {
        server.add(new dev.herald.web.admin.ScheduleRoutes(schedules, scheduler, guard));
        return this;
    }

    /** {@code authorizer}, plus the web chat's admin accounts as admins of their own conversations ({@link dev.herald.web.chat.WebChatAdmins}). */
    public dev.herald.core.auth.Authorizer withAccountAdmins(dev.herald.core.auth.Authorizer authorizer) {
        return new dev.herald.web.chat.WebChatAdmins(authorizer, storage.accounts());
    }

    /**
     * Who may approve dangerous tool calls in their own turns: not web accounts that are not admins, unless
     * {@code usersMay} ({@code platforms.webchat.user_approvals}).
     */
    public java.util.function.Predicate<dev.herald.core.session.SessionSource> approvers(boolean usersMay) {
        return dev.herald.web.chat.WebChatAdmins.approvers(storage.accounts(), usersMay);
    }

    /** The web chat platform, to register with the gateway. */
    public WebChatPlatform chat() {
        return chat.orElseThrow(() -> new IllegalStateException("web - the web chat is disabled (platforms.webchat.enabled: false)"));
    }

    /** The web chat platform, when enabled. */
    public Optional<WebChatPlatform> chatPlatform() {
        return chat;
    }

    public HeraldMetrics metrics() {
        return metrics;
    }

    /** The API keys of web accounts, for the API server ({@code ApiServerPlatform#useApiKeys}). */
    public dev.herald.web.access.ApiKeys apiKeys() {
        return apiKeys;
    }

    /** The web accounts' sign-in (the first-run setup code, the accounts themselves). */
    public AccountSessions accounts() {
        return guard.access().accounts();
    }

    public boolean keyRequired() {
        return guard.access().keyRequired();
    }
}
