package dev.herald.web.metrics;

import dev.herald.core.inbound.GatewayState;
import dev.herald.core.inbound.GatewayStatus;
import dev.herald.web.Routes;
import dev.herald.web.WebJson;
import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@code GET /metrics} (Prometheus text format; the pages' access rule, and with a key configured also
 * {@code Authorization: Bearer KEY} for scrapers) and {@code GET /health/ready} (200 while the gateway is
 * running and its store can write, else 503 with the state, or with {@code store_unavailable} and the reason in a few
 * words that name nothing of the installation; open like {@code /health}, which is the liveness check).
 */
public final class MetricsRoutes implements Routes {
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HeraldMetrics metrics;
    private final Supplier<GatewayStatus> status;
    private final WebGuard guard;

    public MetricsRoutes(HeraldMetrics metrics, Supplier<GatewayStatus> status, WebGuard guard) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.status = Objects.requireNonNull(status, "status");
        this.guard = Objects.requireNonNull(guard, "guard");
    }

    @Override
    public String name() {
        return "metrics";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/metrics", guard.read(this::scrape));
        routes.get("/health/ready", this::ready);
    }

    private void scrape(Context ctx) {
        ctx.contentType(PROMETHEUS_TEXT).header("Cache-Control", "no-store").result(metrics.scrape());
    }

    private void ready(Context ctx) {
        GatewayStatus s = status.get();
        if (s.ready()) {
            WebJson.write(ctx, 200, Map.of("status", "ready"));
        } else if (s.state() != GatewayState.RUNNING) {
            WebJson.write(ctx, 503, Map.of("status", s.state().name().toLowerCase()));
        } else {
            ctx.header("Retry-After", "5");
            WebJson.write(ctx, 503, Map.of("status", "store_unavailable", "reason", s.store().reason(), "since", s.store().since().toString()));
        }
    }
}
