package dev.herald.web;

import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The hand-written pages, served from this jar (no build step, nothing fetched at run time): the web chat
 * at {@code /}, the admin page at {@code /admin}, their scripts and styles under {@code /assets/}. Pages
 * carry no data (that comes from the guarded JSON endpoints), so they follow only the loopback rule; a
 * strict Content-Security-Policy allows nothing but this origin.
 */
public final class PageRoutes implements Routes {
    private static final String BASE = "/dev/herald/web/static/";
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    private record Asset(byte[] body, String contentType) {
    }

    private final WebGuard guard;
    private final boolean withChat;
    private final Map<String, Asset> assets = new LinkedHashMap<>();

    /** @param withChat serve the chat page at {@code /} (else {@code /} redirects to the admin page) */
    public PageRoutes(WebGuard guard, boolean withChat) {
        this.guard = guard;
        this.withChat = withChat;
        if (withChat) {
            page("/", "chat.html");
        }
        page("/admin", "admin.html");
        for (String name : new String[] {"herald.css", "common.js", "markdown.js", "chat-sidebar.js", "chat.js", "admin.js", "admin-schedules.js", "admin-users.js", "chat-keys.js", "chat-links.js",
                "favicon.svg", "vendor/marked.umd.js", "vendor/purify.min.js"}) {
            page("/assets/" + name, name);
        }
    }

    @Override
    public String name() {
        return "pages";
    }

    @Override
    public void register(RoutesConfig routes) {
        for (String path : assets.keySet()) {
            routes.get(path, guard.open(false, ctx -> serve(ctx, assets.get(path))));
        }
        if (!withChat) {
            routes.get("/", guard.open(false, ctx -> ctx.redirect("/admin")));
        }
        routes.get("/favicon.ico", guard.open(false, ctx -> serve(ctx, assets.get("/assets/favicon.svg"))));
    }

    private static void serve(Context ctx, Asset asset) {
        ctx.header("Content-Security-Policy", CSP)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY")
                .header("Cache-Control", "no-cache")
                .contentType(asset.contentType())
                .result(asset.body());
    }

    private void page(String path, String resource) {
        try (InputStream in = PageRoutes.class.getResourceAsStream(BASE + resource)) {
            if (in == null) {
                throw new IllegalStateException("web - page resource " + BASE + resource + " is missing from the jar");
            }
            assets.put(path, new Asset(in.readAllBytes(), contentType(resource)));
        } catch (IOException e) {
            throw new UncheckedIOException("web - cannot read page resource " + resource, e);
        }
    }

    private static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (name.endsWith(".css")) {
            return "text/css; charset=utf-8";
        }
        if (name.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        return name.endsWith(".svg") ? "image/svg+xml" : "application/octet-stream";
    }
}
