package dev.herald.app.runtime;

import dev.herald.core.config.ConfigException;
import dev.herald.web.webhook.WebhookConfig;
import dev.herald.web.webhook.WebhookRouteConfig;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.web.WebServer;
import dev.herald.web.webhook.Delivery;
import dev.herald.web.webhook.WebhookPlatform;
import dev.herald.web.webhook.WebhookRoute;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds the webhook platform from {@code platforms.webhook}, checking that forwarding routes name enabled platforms. */
final class WebhookWiring {
    private WebhookWiring() {
    }

    /**
     * The webhook platform on {@code web}; every route that forwards must name a platform in {@code running}.
     *
     * @throws ConfigException when a route delivers to a platform that is not enabled
     */
    static WebhookPlatform webhook(WebhookConfig config, WebServer web, List<PlatformAdapter> running, Clock clock) {
        List<WebhookRoute> routes = new ArrayList<>();
        for (Map.Entry<String, WebhookRouteConfig> e : config.routes().entrySet()) {
            WebhookRouteConfig r = e.getValue();
            Delivery deliver = Delivery.parse(r.deliver());
            if (deliver instanceof Delivery.Forward f && running.stream().noneMatch(a -> a.platform().equals(f.platform()))) {
                throw new ConfigException("config - platforms.webhook.routes." + e.getKey() + ".deliver names platform '" + f.platform()
                        + "', which is not enabled; enable platforms." + f.platform() + " or deliver to log");
            }
            routes.add(new WebhookRoute(e.getKey(), r.secret().reveal().orElse(null), r.signature(),
                    r.prompt(), deliver));
        }
        return new WebhookPlatform(new WebhookPlatform.Settings(config.maxBodyBytes(), routes), web, clock);
    }
}
