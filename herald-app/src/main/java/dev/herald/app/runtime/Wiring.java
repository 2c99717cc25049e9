package dev.herald.app.runtime;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ModelAgent;
import dev.herald.agent.demo.DemoModel;
import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.app.config.ApiServerConfig;
import dev.herald.app.config.BusyInput;
import dev.herald.app.config.GatewayConfig;
import dev.herald.app.config.HeraldConfig;
import dev.herald.app.config.ModelConfig;
import dev.herald.core.agent.Agent;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.continuity.FreshnessWindow;
import dev.herald.core.gateway.BusyPolicy;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.PlatformRegistry;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.api.ApiServerPlatform;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one running Herald from the validated configuration: the store, the agent, the platforms and
 * the gateway, and closes them in reverse order. Nothing here decides behaviour; it only connects parts.
 */
public final class Wiring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    private final Storage storage;
    private final ModelClient model;
    private final Optional<WebServer> web;
    private final Optional<WebUi> ui;
    private final Gateway gateway;

    private Wiring(Storage storage, ModelClient model, Optional<WebServer> web, Optional<WebUi> ui, Gateway gateway) {
        this.storage = storage;
        this.model = model;
        this.web = web;
        this.ui = ui;
        this.gateway = gateway;
    }

    public static Wiring build(HeraldConfig config, boolean demo, Clock clock) {
        Storage storage = SqliteStorage.open(config.store().path(), clock);
        try {
            HeraldMetrics metrics = new HeraldMetrics();
            GatewaySettings settings = settings(config.gateway());
            ModelClient model = modelClient(config.model(), demo);
            Agent agent = new MeteredAgent(
                    new ModelAgent(model, new AgentSettings(config.model().systemPromptText().orElse(null), null, null)), metrics);
            List<PlatformAdapter> adapters = new ArrayList<>();
            Map<Platform, AccessPolicy> access = new HashMap<>();
            Optional<WebServer> web = Optional.empty();
            Optional<WebUi> ui = Optional.empty();
            ApiServerConfig api = config.platforms().apiServer();
            if (api.enabled()) {
                String key = api.key().reveal().orElse(null);
                ApiServerPlatform.Settings s = new ApiServerPlatform.Settings(api.host(), api.port(), key,
                        api.maxBodyBytes(), api.requestTimeout(), "herald");
                WebServer server = new WebServer(s.listen());
                adapters.add(new ApiServerPlatform(s, agent, server, clock));
                access.put(ApiServerPlatform.PLATFORM, AccessPolicy.allowAll());
                WebUi webUi = WebUi.create(server, key, storage, settings.keyPolicy(), metrics, clock,
                        config.platforms().webchat().enabled());
                webUi.chatPlatform().ifPresent(chat -> {
                    adapters.add(chat);
                    access.put(chat.platform(), AccessPolicy.allowAll());
                });
                web = Optional.of(server);
                ui = Optional.of(webUi);
            } else if (config.platforms().webchat().enabled()) {
                log.warn("runtime - platforms.webchat is enabled but platforms.api_server is not; the web chat, /admin and /metrics "
                        + "are served on the API server's port, so they are off");
            }
            PlatformRegistry registry = new PlatformRegistry(adapters, List.of());
            Gateway gateway = new Gateway(storage, agent, new Allowlists(access, false), registry, settings, clock, metrics);
            ui.ifPresent(u -> u.attach(gateway));
            return new Wiring(storage, model, web, ui, gateway);
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }

    static GatewaySettings settings(GatewayConfig g) {
        return GatewaySettings.defaults()
                .withFreshness(new FreshnessWindow(g.autoContinueFreshness()))
                .withDrainTimeout(g.drainTimeout())
                .withStartupRestoreTimeout(g.startupRestoreDrainTimeout())
                .withBusyPolicy(g.busyInput() == BusyInput.INTERRUPT ? BusyPolicy.INTERRUPT : BusyPolicy.QUEUE)
                .withStuckLoopThreshold(g.stuckLoopThreshold());
    }

    private static ModelClient modelClient(ModelConfig m, boolean demo) {
        if (demo || !m.configured()) {
            log.warn("runtime - DEMO MODEL: {}; every reply is canned and labelled [demo model]. Set model.base_url and "
                    + "model.name in config.yaml to talk to a real model.", demo ? "--demo was given" : "no model.base_url is configured");
            return new DemoModel();
        }
        ModelSettings s = new ModelSettings(m.endpoint().orElseThrow(), m.apiKey().reveal().orElse(null), m.name(),
                m.connectTimeout(), m.idleTimeout(), m.maxRetries());
        log.info("runtime - model {} at {}", m.name(), s.baseUrl());
        return new OpenAiCompatibleClient(s);
    }

    public Gateway gateway() {
        return gateway;
    }

    public Optional<WebServer> web() {
        return web;
    }

    /** The address a person opens: the web chat ({@code /}) or, with the chat off, the admin page. */
    public Optional<String> pageUrl() {
        return web.flatMap(w -> ui.map(u -> w.baseUrl() + (u.chatPlatform().isPresent() ? "/" : "/admin")));
    }

    public Storage storage() {
        return storage;
    }

    @Override
    public void close() {
        web.ifPresent(WebServer::close);
        if (model instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                log.debug("runtime - closing the model client: {}", e.toString());
            }
        }
        storage.close();
    }
}
