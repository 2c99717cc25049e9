package dev.herald.app.config;

import dev.herald.web.api.ApiServerConfig;

import dev.herald.agent.model.ModelConfig;

import dev.herald.store.postgres.JdbcUrl;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The effective configuration in one log line, for {@code herald run}'s start at INFO: what a person scanning
 * the log needs (model, listener, platforms, store, drain, tools, logging). The full printout
 * ({@link ConfigPrinter}) is at DEBUG and in {@code herald config check}. Secrets are never in it: keys only show
 * whether they are set, and URLs lose any user, password, query and fragment.
 */
public final class ConfigSummary {
    private ConfigSummary() {
    }

    public static String line(HeraldConfig c) {
        List<String> parts = new ArrayList<>();
        ModelConfig m = c.model();
        parts.add(m.configured() ? "model " + m.name() + " at " + m.endpoint().map(ConfigSummary::withoutSecrets).orElse("?")
                + (m.apiKey().reveal().isPresent() ? " (api key set)" : "") : "model: the built-in demo model");
        ApiServerConfig api = c.platforms().apiServer();
        parts.add(api.enabled() ? "api_server " + api.host() + ":" + api.port() + (api.key().reveal().isPresent() ? " (key set)" : " (no key)")
                : "api_server off");
        parts.add("platforms " + platforms(c.platforms()));
        parts.add(c.store().postgres() ? "store " + JdbcUrl.describe(c.store().url()) : "store sqlite " + c.store().path());
        parts.add("drain " + c.gateway().drainTimeout().toSeconds() + " s");
        parts.add("tools " + String.join(",", c.agent().tools()));
        parts.add(c.mcpServers().size() + " MCP server(s)");
        parts.add("logging " + c.logging().format().name().toLowerCase(java.util.Locale.ROOT));
        return String.join("; ", parts);
    }

    private static String platforms(PlatformsConfig p) {
        List<String> on = new ArrayList<>();
        if (p.apiServer().enabled()) {
            on.add("api_server");
        }
        if (p.apiServer().enabled() && p.webchat().enabled()) {
            on.add("webchat");
        }
        p.chat().forEach((type, section) -> {
            if (section.access().enabled()) {
                on.add(type);
            }
        });
        if (p.webhook().enabled()) {
            on.add("webhook (" + p.webhook().routes().size() + " route(s))");
        }
        return on.isEmpty() ? "none" : String.join(",", on);
    }

    static String withoutSecrets(URI u) {
        String host = u.getHost() == null ? "" : u.getHost();
        return (u.getScheme() == null ? "" : u.getScheme() + "://") + host + (u.getPort() < 0 ? "" : ":" + u.getPort())
                + (u.getPath() == null ? "" : u.getPath());
    }
}
