package dev.herald.web;

import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.Platform;
import io.javalin.http.Context;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A platform plug-in's webhook routes on the API server's listener ({@link InboundHttp}): {@code /platforms/<type>/...},
 * no API key (the platform's signature is the caller's authentication), bodies capped at
 * {@link InboundHttp#MAX_BODY_BYTES} (413), a handler's failure answered 500 without its text and logged with the
 * platform's name. Every answer is counted in {@code herald_platform_webhooks_total{platform,status}}, so refused calls
 * (401/403/413) show in {@code /metrics} whichever plug-in refused them.
 */
public final class PlatformRoutes implements InboundHttp {
    private static final Logger log = LoggerFactory.getLogger(PlatformRoutes.class);
    private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "DELETE", "PATCH");

    private final Platform platform;
    private final WebServer server;
    private final MeterRegistry registry;

    /** Routes whose answers are counted in a registry of their own (tests, fakes). */
    public PlatformRoutes(Platform platform, WebServer server) {
        this(platform, server, new SimpleMeterRegistry());
    }

    /** @param registry where each answer is counted by platform and status */
    public PlatformRoutes(Platform platform, WebServer server, MeterRegistry registry) {
        this.platform = Objects.requireNonNull(platform, "platform");
        this.server = Objects.requireNonNull(server, "server");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void route(String method, String subpath, Handler handler) {
        String m = method.toUpperCase(Locale.ROOT);
        if (!METHODS.contains(m)) {
            throw new IllegalArgumentException("plugins - " + platform + " asked for a route with method " + method);
        }
        if (subpath == null || !subpath.matches("[A-Za-z0-9._{}/-]{0,200}") || subpath.contains("..")) {
            throw new IllegalArgumentException("plugins - " + platform + " asked for a route at an unusable path: " + subpath);
        }
        String path = InboundHttp.pathOf(platform, subpath);
        server.add(Routes.of(platform.id() + " " + m + " " + path, r -> {
            switch (m) {
                case "GET" -> r.get(path, ctx -> serve(ctx, handler));
                case "POST" -> r.post(path, ctx -> serve(ctx, handler));
                case "PUT" -> r.put(path, ctx -> serve(ctx, handler));
                case "DELETE" -> r.delete(path, ctx -> serve(ctx, handler));
                default -> r.patch(path, ctx -> serve(ctx, handler));
            }
        }));
        log.info("{} - serving {} {} on the API server's listener", platform, m, path);
    }

    private void serve(Context ctx, Handler handler) throws java.io.IOException {
        byte[] body = LimitedBody.read(ctx, MAX_BODY_BYTES);
        if (body == null) {
            respond(ctx, Response.text(413, "the body is over the " + MAX_BODY_BYTES + "-byte limit"));
            return;
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        ctx.headerMap().keySet().forEach(name -> headers.put(name, List.copyOf(java.util.Collections.list(ctx.req().getHeaders(name)))));
        Map<String, String> query = new LinkedHashMap<>();
        ctx.queryParamMap().forEach((k, v) -> {
            if (!v.isEmpty()) {
                query.put(k, v.getFirst());
            }
        });
        String url = ctx.fullUrl();
        Request request = new Request(ctx.method().name(), ctx.path(), headers, query, body, ctx.ip(), url);
        Response response;
        try {
            response = handler.handle(request);
        } catch (Exception e) {
            log.warn("{} - {} {} failed; answered 500: {}", platform, ctx.method(), ctx.path(), e.toString());
            response = Response.text(500, "the request could not be handled");
        }
        respond(ctx, response == null ? Response.ok() : response);
    }

    private void respond(Context ctx, Response r) {
        Counter.builder("herald.platform.webhooks").description("calls to the platforms' webhook routes by platform and answer status")
                .tag("platform", platform.id()).tag("status", Integer.toString(r.status())).register(registry).increment();
        ctx.status(r.status());
        ctx.header("Cache-Control", "no-store");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.contentType(r.contentType());
        ctx.result(r.body());
    }
}
