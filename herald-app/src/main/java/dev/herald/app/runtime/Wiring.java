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
import dev.herald.core.auth.Pairing;
import dev.herald.core.continuity.FreshnessWindow;
import dev.herald.core.gateway.BusyPolicy;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayMetrics;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.web.WebServer;
import dev.herald.web.api.ApiServerPlatform;
import java.nio.file.Path;
import java.time.Clock;
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
    private final Gateway gateway;

    private Wiring(Storage storage, ModelClient model, Optional<WebServer> web, Gateway gateway) {
        this.storage = storage;
        this.model = model;
        this.web = web;
        this.gateway = gateway;
    }

    public static Wiring build(HeraldConfig config, Path home, boolean demo, Clock clock) {
        Storage storage = SqliteStorage.open(config.store().path(), clock);
        try {
            ModelClient model = modelClient(config.model(), demo);
            Agent agent = new ModelAgent(model, new AgentSettings(config.model().systemPromptText().orElse(null), null, null));
            PlatformSet platforms = new PlatformSet();
            Optional<WebServer> web = Optional.empty();
            ApiServerConfig api = config.platforms().apiServer();
            if (api.enabled()) {
                ApiServerPlatform.Settings s = new ApiServerPlatform.Settings(api.host(), api.port(), api.key().reveal().orElse(null),
                        api.maxBodyBytes(), api.requestTimeout(), "herald");
                WebServer server = new WebServer(s.listen());
                platforms.trusted(new ApiServerPlatform(s, agent, server, clock));
                web = Optional.of(server);
            }
            ChatPlatforms.add(config, home, clock, platforms);
            Pairing pairing = new Pairing(new FilePairingStore(home.resolve("pairing")), clock);
            Gateway gateway = new Gateway(storage, agent, platforms.authorizer(config.auth().allowAllUsers(), pairing),
                    platforms.registry(), settings(config.gateway()), clock, GatewayMetrics.NONE);
            gateway.useHomeChannelStore(new FileHomeChannelStore(home.resolve("home_channels.json")));
            return new Wiring(storage, model, web, gateway);
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
