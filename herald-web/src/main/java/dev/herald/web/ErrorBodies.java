package dev.herald.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The bodies of errors no route wrote: Javalin's 404 and 405, and Jetty's own refusals before a request
 * reaches a route (431 headers too large, 414, 400 malformed). A path under a registered prefix gets that
 * feature's shape ({@link WebServer.ErrorFormat}, e.g. OpenAI's for {@code /v1/}); any other path gets
 * {@code {"error": "..."}}. A JSON body a handler already wrote is left alone.
 */
final class ErrorBodies {
    private final Map<String, WebServer.ErrorFormat> formats;

    ErrorBodies(Map<String, WebServer.ErrorFormat> formats) {
        this.formats = formats;
    }

    /** Javalin's error hook for 404 and 405; a handler's own JSON error is kept. */
    void javalinError(Context ctx) {
        String type = ctx.res().getContentType();
        if (type != null && type.startsWith("application/json")) {
            return;
        }
        int status = ctx.statusCode();
        String message = status == 405
                ? "method " + ctx.method() + " is not allowed on " + shorten(ctx.path()) + "; see the API's documentation for the methods it takes"
                : "no such endpoint: " + ctx.method() + " " + shorten(ctx.path());
        ctx.contentType("application/json").result(body(ctx.path(), status, message));
    }

    /** Jetty's error handler, for requests refused while they were parsed. */
    ErrorHandler jettyHandler() {
        return new ErrorHandler() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                int status = request.getAttribute(ERROR_STATUS) instanceof Integer s ? s : response.getStatus();
                String path = request.getHttpURI() == null || request.getHttpURI().getPath() == null ? "/" : request.getHttpURI().getPath();
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
                response.write(true, ByteBuffer.wrap(body(path, status, jettyMessage(status, request.getAttribute(ERROR_MESSAGE)))), callback);
                return true;
            }
        };
    }

    private byte[] body(String path, int status, String message) {
        for (Map.Entry<String, WebServer.ErrorFormat> e : formats.entrySet()) {
            if (path.startsWith(e.getKey())) {
                return e.getValue().body(status, message);
            }
        }
        ObjectNode node = WebJson.MAPPER.createObjectNode().put("error", message);
        return WebJson.bytes(node);
    }

    static String jettyMessage(int status, Object detail) {
        return switch (status) {
            case 431 -> "the request headers are too large; send fewer or shorter headers";
            case 414 -> "the request URI is too long";
            case 413 -> "the request is too large";
            case 404 -> "no such endpoint";
            case 400 -> "malformed HTTP request" + (detail instanceof String d && !d.isBlank() ? " (" + shorten(d).toLowerCase(Locale.ROOT) + ")" : "");
            default -> "the request failed (HTTP " + status + ")";
        };
    }

    private static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
