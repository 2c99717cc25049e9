package dev.herald.app.config;

import dev.herald.app.logging.LoggingConfig;

import dev.herald.core.schedule.SchedulesConfig;
import dev.herald.core.auth.CommandsConfig;
import dev.herald.core.auth.AuthConfig;
import dev.herald.agent.persona.PersonalityConfig;
import dev.herald.app.hooks.HookConfig;
import dev.herald.core.config.ClosestKey;


import dev.herald.store.StoreConfig;

import dev.herald.agent.AgentConfig;
import dev.herald.agent.model.ModelConfig;
import dev.herald.agent.model.ModelProfileConfig;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.nio.file.Path;

/**
 * The whole configuration, one immutable record per section. Built once by {@link ConfigLoader} (YAML,
 * environment, defaults), validated, then only read. Each section's record is its component's own and lives with it
 * ({@code GatewayConfig} in the gateway's package, {@code StoreConfig} in the store's, a platform's settings record in
 * its plug-in; docs/architecture.md lists them): a new top-level section is that record plus one component here and
 * its {@code defaults()} in {@link #defaults()}. The rules across sections are in {@link #validate}.
 */
public record HeraldConfig(
        ModelConfig model,
        @Doc("more model profiles by name (letters, digits, '.', '_' or '-'): /model switches a chat to one, an API request's "
                + "model field names one; model: is the profile named default")
        java.util.Map<String, ModelProfileConfig> models,
        PlatformsConfig platforms,
        dev.herald.core.gateway.GatewayConfig gateway,
        AuthConfig auth,
        AgentConfig agent,
        @Doc("MCP servers whose tools the agent may call")
        java.util.List<dev.herald.agent.mcp.McpServerSettings> mcpServers,
        StoreConfig store,
        LoggingConfig logging,
        SchedulesConfig schedules,
        dev.herald.core.cluster.ClusterConfig cluster,
        dev.herald.agent.voice.VoiceSettings voice,
        CommandsConfig commands,
        @Doc("personas by name (letters, digits, '.', '_' or '-'): /personality <name> chooses one for a chat")
        java.util.Map<String, PersonalityConfig> personalities,
        @Doc("commands or URLs run on lifecycle events (docs/hooks.md)")
        java.util.List<HookConfig> hooks) implements Validated {

    public HeraldConfig {
        mcpServers = mcpServers == null ? java.util.List.of() : java.util.List.copyOf(mcpServers);
        models = models == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(models));
        logging = logging == null ? LoggingConfig.defaults() : logging;
        schedules = schedules == null ? SchedulesConfig.defaults() : schedules;
        cluster = cluster == null ? dev.herald.core.cluster.ClusterConfig.defaults() : cluster;
        voice = voice == null ? dev.herald.agent.voice.VoiceSettings.defaults() : voice;
        commands = commands == null ? CommandsConfig.defaults() : commands;
        personalities = personalities == null ? java.util.Map.of()
                : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(personalities));
        hooks = hooks == null ? java.util.List.of() : java.util.List.copyOf(hooks);
    }

    /** Every key at its default, as if the file were empty. {@code store.path} is not yet resolved. */
    public static HeraldConfig defaults() {
        return new HeraldConfig(ModelConfig.defaults(), java.util.Map.of(), PlatformsConfig.defaults(), dev.herald.core.gateway.GatewayConfig.defaults(),
                AuthConfig.defaults(), AgentConfig.defaults(), java.util.List.of(), StoreConfig.defaults(),
                LoggingConfig.defaults(), SchedulesConfig.defaults(), dev.herald.core.cluster.ClusterConfig.defaults(), dev.herald.agent.voice.VoiceSettings.defaults(),
                CommandsConfig.defaults(), java.util.Map.of(), java.util.List.of());
    }

    /** Rules across sections: the agent's and the scheduled jobs' tool lists name tools and platforms that exist, jobs name profiles that do. */
    @Override
    public void validate(ConfigChecks check) {
        ToolNames.validate(agent, mcpServers, platforms.names(), check);
        ScheduleJobChoices.validate(schedules, models, mcpServers, check);
        validatePersonalities(check);
        ChannelConfig.validate(platforms, models, personalities, mcpServers, check);
        for (var e : models.entrySet()) {
            String name = e.getKey();
            check.require(PROFILE_NAME.matcher(name).matches(), "models." + name,
                    "is not a valid profile name: use 1-64 letters, digits, '.', '_' or '-'");
            check.require(!RESERVED_PROFILES.contains(name.toLowerCase(java.util.Locale.ROOT)), "models." + name,
                    "is reserved (default is model:, herald names a conversation's own choice); pick another name");
            check.require(e.getValue().endpoint(model).isPresent(), "models." + name + ".base_url",
                    "is needed: model.base_url is not set either");
        }
    }

    /** Personas have valid names (not {@code default}, which /personality keeps for none) and name profiles that exist. */
    private void validatePersonalities(ConfigChecks check) {
        for (var e : personalities.entrySet()) {
            String name = e.getKey();
            check.require(PROFILE_NAME.matcher(name).matches(), "personalities." + name,
                    "is not a valid personality name: use 1-64 letters, digits, '.', '_' or '-'");
            check.require(!name.equalsIgnoreCase("default") && !name.equalsIgnoreCase("none"), "personalities." + name,
                    "is reserved (/personality default goes back to none); pick another name");
            String model = e.getValue().model();
            if (model != null && !model.isBlank() && !model.equals("default") && !models.containsKey(model)) {
                java.util.List<String> known = new java.util.ArrayList<>(models.keySet());
                known.add("default");
                check.require(false, "personalities." + name + ".model", "names no model profile: \"" + model + "\""
                        + ClosestKey.to(model, known).map(k -> "; did you mean " + k + "?").orElse("; use default or a name under models:"));
            }
        }
    }

    private static final java.util.regex.Pattern PROFILE_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final java.util.Set<String> RESERVED_PROFILES = java.util.Set.of("default", "herald");

    /** This configuration with the paths that live under {@code home} made absolute. */
    public HeraldConfig resolvedIn(Path home) {
        return new HeraldConfig(model, models, platforms, gateway, auth, agent.resolvedIn(home), mcpServers, store.resolvedIn(home), logging,
                schedules, cluster, voice, commands, personalities, hooks);
    }
}
