package dev.herald.app.config;

import java.nio.file.Path;

/**
 * The whole configuration, one immutable record per component. Built once by {@link ConfigLoader} (YAML,
 * environment, defaults), validated, then only read. A new top-level section is one record plus one
 * component here and its {@code defaults()} in {@link #defaults()}.
 */
public record HeraldConfig(
        ModelConfig model,
        PlatformsConfig platforms,
        GatewayConfig gateway,
        AuthConfig auth,
        AgentConfig agent,
        @Doc("MCP servers whose tools the agent may call")
        java.util.List<McpServerConfig> mcpServers,
        StoreConfig store,
        LoggingConfig logging,
        SchedulesConfig schedules) implements Validated {

    public HeraldConfig {
        mcpServers = mcpServers == null ? java.util.List.of() : java.util.List.copyOf(mcpServers);
        logging = logging == null ? LoggingConfig.defaults() : logging;
        schedules = schedules == null ? SchedulesConfig.defaults() : schedules;
    }

    /** Every key at its default, as if the file were empty. {@code store.path} is not yet resolved. */
    public static HeraldConfig defaults() {
        return new HeraldConfig(ModelConfig.defaults(), PlatformsConfig.defaults(), GatewayConfig.defaults(),
                AuthConfig.defaults(), AgentConfig.defaults(), java.util.List.of(), StoreConfig.defaults(),
                LoggingConfig.defaults(), SchedulesConfig.defaults());
    }

    /** Rules across sections: the agent's tool lists name tools and platforms that exist. */
    @Override
    public void validate(ConfigChecks check) {
        ToolNames.validate(agent, mcpServers, check);
    }

    /** This configuration with the paths that live under {@code home} made absolute. */
    public HeraldConfig resolvedIn(Path home) {
        return new HeraldConfig(model, platforms, gateway, auth, agent.resolvedIn(home), mcpServers, store.resolvedIn(home), logging,
                schedules);
    }
}
