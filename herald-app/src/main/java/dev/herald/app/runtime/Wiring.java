package dev.herald.app.runtime;

import dev.herald.agent.AgentSettings;
import dev.herald.agent.ProfileAgent;
import dev.herald.agent.persona.PersonalityCommand;
import dev.herald.agent.persona.Personas;
import dev.herald.agent.demo.DemoModel;
import dev.herald.agent.mcp.McpTools;
import dev.herald.agent.model.ModelClient;
import dev.herald.agent.model.ModelSettings;
import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ScheduleTool;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.agent.AgentConfig;
import dev.herald.web.api.ApiServerConfig;
import dev.herald.app.config.HeraldConfig;
import dev.herald.agent.model.ModelConfig;
import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.auth.Pairing;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayBuilder;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MediaFetchers;
import dev.herald.core.platform.Platform;
import dev.herald.core.schedule.JobTurnOptions;
import dev.herald.core.schedule.ScheduleCommand;
import dev.herald.core.schedule.SchedulePlatform;
import dev.herald.core.schedule.Scheduler;
import dev.herald.core.schedule.Schedules;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.web.MediaStore;
import dev.herald.web.WebServer;
import dev.herald.web.WebUi;
import dev.herald.web.access.SessionRevocations;
import dev.herald.web.api.ApiServerPlatform;
import dev.herald.web.metrics.HeraldMetrics;
import dev.herald.web.metrics.MeteredAgent;
import dev.herald.web.metrics.ScheduleMeters;
import dev.herald.web.webhook.WebhookPlatform;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one running Herald from the validated configuration: the store, the agent, the platforms and
 * the gateway, and closes them in reverse order. Nothing here decides behaviour; it only connects parts.
 */
public final class Wiring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    /** One start-up line saying whether and where voice notes are transcribed (never the key). */
    private static void voiceLine(dev.herald.agent.voice.VoiceSettings.Transcription t) {
        if (!t.enabled()) {
            log.info("runtime - voice notes are not transcribed (voice.transcription.base_url is not set)");
            return;
        }
        boolean needsFfmpeg = t.format() != dev.herald.agent.voice.VoiceSettings.AudioFormat.ORIGINAL;
        if (needsFfmpeg && dev.herald.agent.voice.AudioFiles.ffmpeg().isEmpty()) {
            log.warn("runtime - voice.transcription.format is {}, which needs ffmpeg, and no ffmpeg is on the PATH: voice notes are "
                    + "not transcribed until it is installed", t.format().name().toLowerCase(java.util.Locale.ROOT));
        }
        log.info("runtime - voice notes are transcribed at {} (model {}, sent as {})", t.baseUrl().replaceAll("//[^/@]*@", "//"), t.model(),
                t.format().name().toLowerCase(java.util.Locale.ROOT));
    }

    private final Storage storage;
    private final List<ProfileAgent.Profile> models;
    private final McpTools mcp;
    private final Optional<WebServer> web;
    private final Optional<WebUi> ui;
    private final Gateway gateway;
    private final Scheduler scheduler;
    private final dev.herald.app.hooks.Hooks hooks;

    private Wiring(Storage storage, List<ProfileAgent.Profile> models, McpTools mcp, Optional<WebServer> web, Optional<WebUi> ui,
            Gateway gateway, Scheduler scheduler, dev.herald.app.hooks.Hooks hooks) {
        this.storage = storage;
        this.models = models;
        this.mcp = mcp;
        this.web = web;
        this.ui = ui;
        this.gateway = gateway;
        this.scheduler = scheduler;
        this.hooks = hooks;
    }

    public static Wiring build(HeraldConfig config, Path home, boolean demo, Clock clock) {
        return build(config, home, demo, clock, null);
    }

    /** {@link #build(HeraldConfig, Path, boolean, Clock)} for a process taking over from node {@code predecessor} (or null). */
    public static Wiring build(HeraldConfig config, Path home, boolean demo, Clock clock, String predecessor) {
        return build(config, home, demo, clock, predecessor, b -> b);
    }

    /**
     * {@link #build(HeraldConfig, Path, boolean, Clock, String)} whose gateway also gets {@code hooks}: what the running
     * process does on a restart request, a clean stop and being fenced out.
     */
    public static Wiring build(HeraldConfig config, Path home, boolean demo, Clock clock, String predecessor,
            java.util.function.UnaryOperator<GatewayBuilder> hooks) {
        return build(config, home, demo, clock, predecessor, hooks, () -> config);
    }

    /**
     * {@link #build(HeraldConfig, Path, boolean, Clock, String, java.util.function.UnaryOperator)} whose {@code /reload-mcp}
     * reads the configuration file again with {@code reread} (which throws, with a message naming the problem, when it cannot).
     */
    public static Wiring build(HeraldConfig config, Path home, boolean demo, Clock clock, String predecessor,
            java.util.function.UnaryOperator<GatewayBuilder> hooks, java.util.function.Supplier<HeraldConfig> reread) {
        Storage storage = Stores.open(config.store(), clock);
        try {
            ModelClient model = modelClient(config.model(), demo);
            HeraldMetrics metrics = new HeraldMetrics();
            dev.herald.app.hooks.Hooks lifecycleHooks = new dev.herald.app.hooks.Hooks(config.hooks(), clock);
            McpTools mcp = new McpTools(config.mcpServers()).start();
            AtomicReference<PlatformRegistry> registryRef = new AtomicReference<>();
            AtomicReference<Authorizer> authorizerRef = new AtomicReference<>();
            List<ProfileAgent.Profile> profiles = ModelProfiles.build(config, model, demo);
            AtomicReference<ToolRegistry> toolsRef = new AtomicReference<>();
            MediaFetchers fetchers = new MediaFetchers();
            Schedules schedules = new Schedules(storage.schedules(), clock, config.schedules().zone(),
                    p -> registryRef.get() != null && registryRef.get().adapter(p).isPresent(), ScheduleWiring.choices(profiles, toolsRef::get));
            dev.herald.agent.skill.Skills skills = new dev.herald.agent.skill.Skills(home.resolve("skills"), config.agent().skillsWritable());
            skills.checkAtStart(); // an invalid SKILL.md is a warning naming the file, now
            dev.herald.agent.skill.SkillCommand skillCommand = new dev.herald.agent.skill.SkillCommand(skills);
            dev.herald.core.platform.PlatformTools pluginTools = new dev.herald.core.platform.PlatformTools(); // filled as adapters are made
            // a chat identity linked to a web account (/link) keeps its memory under the account's
            dev.herald.core.account.Identities identities = new dev.herald.core.account.Identities(storage.identityLinks(), clock);
            dev.herald.agent.memory.MemoryBook memory = new dev.herald.agent.memory.MemoryBook(identities.memories(storage.memories()),
                    config.agent().memory(), clock);
            ToolRegistry toolRegistry = tools(config.agent(), List.of(mcp, new dev.herald.agent.tool.PlatformToolSource(pluginTools)), schedules,
                    storage, authorizerRef, skills, memory);
            toolsRef.set(toolRegistry);
            voiceLine(config.voice().transcription());
            if (config.voice().speech().enabled()) {
                log.info("runtime - answers to voice notes are spoken too, at {} (model {}, voice {}, {})",
                        config.voice().speech().baseUrl().replaceAll("//[^/@]*@", "//"), config.voice().speech().model(),
                        config.voice().speech().voice(), config.voice().speech().format().wire());
            }
            MediaStore media = MediaStore.in(home.resolve("media"));
            KeptVoiceNotes keptVoice = new KeptVoiceNotes(media, fetchers, config.voice().transcription());
            Personas personas = personas(config, storage, identities);
            ProfileAgent profileAgent = new ProfileAgent(profiles, toolRegistry, keptVoice::fetchers, storage.modelChoices(),
                    config.voice(), storage.chatPreferences(), personas, memory);
            Agent agent = new MeteredAgent(profileAgent, metrics);
            GatewaySettings settings = config.gateway().settings().withApprovals(
                    config.agent().approvalTimeout(), config.agent().allowsWithoutApprover());
            PlatformSet platforms = new PlatformSet();
            Optional<WebUi> ui = Optional.empty();
            Optional<dev.herald.core.inbound.CommandExtension> linkCommand = Optional.empty(); // /link: only where accounts are served
            Optional<WebServer> web = Optional.empty();
            ApiServerConfig api = config.platforms().apiServer();
            String key = api.key().reveal().orElse(null);
            ApiServerPlatform.Settings s = api.settings(config.model().maxImageBytes());
            if (api.enabled() || config.platforms().webhook().enabled()) {
                web = Optional.of(new WebServer(s.listen().withClientLimits(api.headerTimeout(), api.maxConnectionsPerAddress())));
            }
            if (api.enabled()) {
                ApiServerPlatform apiServer = new ApiServerPlatform(s, agent, web.orElseThrow(), clock);
                apiServer.useMediaStore(media);
                fetchers.register(apiServer.platform(), apiServer);
                platforms.restricted(apiServer, api.accessPolicy());
                WebUi webUi = WebUi.create(web.orElseThrow(), key, SessionRevocations.persistedIn(home.resolve("web/logged_out_sessions")),
                        storage, settings.keyPolicy(), metrics, clock, config.platforms().webchat().enabled());
                apiServer.useApiKeys(webUi.apiKeys());
                if (config.platforms().webchat().oidc().enabled()) {
                    webUi.useOidc(config.platforms().webchat().oidc().settings());
                }
                webUi.chatPlatform().ifPresent(chat -> chat.useMediaStore(media, config.model().maxImageBytes()));
                webUi.chatPlatform().ifPresent(chat -> chat.showHeard(new dev.herald.agent.HeardVoiceNotes(config.agent().workspaceRoot())::of));
                webUi.chatPlatform().ifPresent(chat -> fetchers.register(chat.platform(), chat));
                webUi.chatPlatform().ifPresent(platforms::trusted);
                linkCommand = Optional.of(webUi.useIdentities(identities));
                ui = Optional.of(webUi);
            } else if (config.platforms().webchat().enabled()) {
                log.warn("runtime - platforms.webchat is enabled but platforms.api_server is not; the web chat, /admin and /metrics "
                        + "are served on the API server's port, so they are off");
            }
            ChatPlatforms.add(config.platforms(), home, clock, platforms, storage.platformState(), fetchers, api.enabled() ? web : Optional.empty(),
                    metrics.registry(), pluginTools);
            // the log delivery of scheduled jobs; only the scheduler writes there, so nothing else is asked of it
            platforms.trusted(new SchedulePlatform());
            // background tasks (/bg): only the gateway writes there, and their messages go to the chat that asked
            platforms.trusted(new dev.herald.core.side.BackgroundPlatform());
            if (config.platforms().webhook().enabled()) {
                // a route's signature is its caller's authentication; nothing else is asked of a verified request
                WebhookPlatform webhook = WebhookWiring.webhook(config.platforms().webhook(), web.orElseThrow(), platforms.adapters(), clock);
                platforms.trusted(webhook).relays(webhook.relays());
            }
            PlatformRegistry registry = platforms.registry();
            registryRef.set(registry);
            Pairing pairing = new Pairing(new FilePairingStore(home.resolve("pairing")), clock);
            Authorizer configured = platforms.authorizer(config.auth().allowAllUsers(), pairing);
            Authorizer authorizer = ui.map(u -> u.withAccountAdmins(configured)).orElse(configured);
            authorizerRef.set(authorizer);
            ScheduleWiring.reconcile(config.schedules(), storage.schedules(), clock, platforms.adapters());
            Optional<WebServer> server = web;
            Gateway gateway = hooks.apply(Gateway.builder(storage, agent, authorizer, registry)
                    .settings(settings)
                    .clock(clock)
                    .metrics(dev.herald.core.metrics.MetricsFanOut.of(metrics, lifecycleHooks))
                    .cluster(config.cluster().settings(predecessor))
                    .homeChannels(new FileHomeChannelStore(home.resolve("home_channels.json")))
                    .commandTiers(config.commands().tiers())
                    .command(new ScheduleCommand(schedules))
                    .mediaKeeper(config.voice().transcription().enabled() ? keptVoice : dev.herald.core.platform.MediaKeeper.NONE)
                    .command(new dev.herald.agent.voice.VoiceCommand(storage.chatPreferences(), config.voice().speech().enabled()))
                    .command(skillCommand)
                    .command(new PersonalityCommand(personas, storage.modelChoices()))
                    .command(new dev.herald.agent.ContextCommand(profileAgent, storage))
                    .command(new dev.herald.agent.memory.MemoryCommand(memory))
                    .command(new dev.herald.agent.ReasoningCommand(profileAgent, storage.chatPreferences()))
                    .command(new dev.herald.agent.mcp.ReloadMcpCommand(mcp,
                            () -> reread.get().mcpServers()))
                    .command(linkCommand)
                    // web accounts that are not admins approve no dangerous calls unless platforms.webchat.user_approvals
                    .approvers(ui.map(u -> u.approvers(config.platforms().webchat().userApprovals())).orElse(source -> true))
                    .storedOptions(new JobTurnOptions(storage.schedules()))
                    .channels(dev.herald.app.config.ChannelConfig.overrides(config.platforms()))
                    // on a handover new connections reach the new process
                    .onHandover(() -> server.ifPresent(WebServer::stopAccepting)))
                    .build();
            skillCommand.attach(gateway::accept); // /<skill name> becomes a turn of the chat
            lifecycleHooks.node(() -> gateway.membership().id());
            // a cut-off run waits for its resume as long as the gateway would still resume it
            Scheduler scheduler = new Scheduler(storage.schedules(), gateway, clock, new ScheduleMeters(metrics),
                    Scheduler.Settings.defaults().withResumeWait(settings.freshness().length()));
            ui.ifPresent(u -> u.attach(gateway).attachSchedules(schedules, scheduler));
            return new Wiring(storage, profiles, mcp, web, ui, gateway, scheduler, lifecycleHooks);
        } catch (RuntimeException e) {
            storage.close();
            throw e;
        }
    }

    /**
     * The built-in tools, {@code schedule} (it acts for the chat a turn's scope belongs to), {@code skill}, {@code memory}
     * (unless {@code agent.memory.enabled} is false), and the
     * {@code sources}' tools (the MCP servers', the platform plug-ins').
     */
    private static ToolRegistry tools(AgentConfig a, List<dev.herald.agent.tool.ToolSource> sources, Schedules schedules, Storage storage, AtomicReference<Authorizer> auth,
            dev.herald.agent.skill.Skills skills, dev.herald.agent.memory.MemoryBook memory) {
        ToolSettings settings = a.toolSettings();
        ScheduleTool schedule = new ScheduleTool(schedules, scope -> chatOf(storage, scope),
                source -> auth.get() != null && auth.get().isAdmin(source));
        List<dev.herald.agent.tool.Tool> builtins = new ArrayList<>(BuiltinTools.all(settings));
        builtins.add(schedule);
        builtins.add(new dev.herald.agent.skill.SkillTool(skills));
        if (memory.settings().enabled()) {
            builtins.add(new dev.herald.agent.memory.MemoryTool(memory));
        }
        return new ToolRegistry(settings, builtins, sources);
    }

    /** The chat and user of a lane (its latest message's source); empty for a scope that is no lane (a stateless call). */
    private static Optional<SessionSource> chatOf(Storage storage, String scope) {
        try {
            return storage.sessions().find(new SessionKey(scope)).map(e -> e.origin());
        } catch (IllegalArgumentException notAKey) {
            return Optional.empty();
        }
    }

    /** The configured personas ({@code personalities:}), the chats' choices read from the store's chat preferences. */
    private static Personas personas(HeraldConfig config, Storage storage, dev.herald.core.account.Identities identities) {
        java.util.Map<String, Personas.Persona> all = new java.util.LinkedHashMap<>();
        config.personalities().forEach((name, p) -> all.put(name, new Personas.Persona(name, p.systemPrompt(), p.model())));
        if (!all.isEmpty()) {
            log.info("runtime - personalities: {}", String.join(", ", all.keySet()));
        }
        return new Personas(all, storage.chatPreferences(), identities::account); // a person's choice follows their account
    }

    static ModelClient modelClient(ModelConfig m, boolean demo) {
        if (demo || !m.configured()) {
            log.warn("runtime - DEMO MODEL: {}; every reply is canned and labelled [demo model]. Set model.base_url and "
                    + "model.name in config.yaml to talk to a real model.", demo ? "--demo was given" : "no model.base_url is configured");
            return new DemoModel();
        }
        ModelSettings s = m.settings();
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

    /** Starts running due jobs (after the gateway has started: runs claimed before the last stop are submitted first). */
    public void startScheduler() {
        scheduler.start();
    }

    /** Stops running due jobs (before the gateway stops; a due run is claimed by the next start). */
    public void stopScheduler() {
        scheduler.close();
    }

    @Override
    public void close() {
        scheduler.close();
        web.ifPresent(WebServer::close);
        mcp.close();
        hooks.close(); // after the gateway's stop: gateway.stopping gets its run
        for (ProfileAgent.Profile p : models) {
            if (p.client() instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.debug("runtime - closing the model client of profile {}: {}", p.name(), e.toString());
                }
            }
        }
        storage.close();
    }
}
