package dev.herald.app.runtime;

import dev.herald.app.config.HeraldConfig;
import dev.herald.app.config.PlatformsConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The "Herald is ready" log line: the addresses a person can open, and only those that are served. The web
 * chat, the admin page and /metrics come with the API server (the chat unless platforms.webchat is off), the
 * OpenAI-compatible API with the API server, the webhook routes with the webhook platform; with neither, there
 * is no HTTP listener and the line says so.
 */
public final class ReadyLine {
    private ReadyLine() {
    }

    /** {@code base} is the listener's base URL ({@code http://127.0.0.1:8642}), or null when nothing listens. */
    public static String text(HeraldConfig config, String base) {
        PlatformsConfig p = config.platforms();
        if (base == null) {
            return "runtime - Herald is ready (no HTTP listener: platforms.api_server and platforms.webhook are off)";
        }
        List<String> served = new ArrayList<>();
        if (p.apiServer().enabled()) {
            served.add((p.webchat().enabled() ? "open " + base + "/ (admin at " + base + "/admin" : "admin at " + base + "/admin (")
                    + (p.webchat().enabled() ? ", " : "") + "metrics at " + base + "/metrics)");
            served.add("OpenAI-compatible API at " + base + "/v1");
        }
        if (p.webhook().enabled()) {
            served.add("webhooks at " + String.join(", ", p.webhook().routes().keySet().stream().sorted()
                    .map(r -> base + "/webhooks/" + r).toList()));
        }
        return "runtime - Herald is ready: " + String.join("; ", served);
    }
}
