package dev.herald.core.platform;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a platform whose service calls Herald (a webhook: WhatsApp, LINE, Teams, Twilio, ...) serves those calls: on the
 * API server's listener, under {@code /platforms/<type>/}. A route sees the raw body (to check a signature over it
 * before anything is parsed or stored), the headers and the query, and answers with a status and a body. Nothing else
 * guards the route (no API key: the platform's own signature is its caller's authentication), so the handler checks
 * that signature first and refuses what fails it. Bodies are capped ({@value #MAX_BODY_BYTES} bytes unless a route
 * asks for less: 413).
 */
public interface InboundHttp {
    /** The largest body a route reads. */
    int MAX_BODY_BYTES = 1024 * 1024;

    /**
     * Serves {@code method} ({@code GET}, {@code POST}, ...) requests to {@code /platforms/<type>/<subpath>}; only while
     * the plug-in is being created (before Herald starts listening).
     *
     * @throws IllegalArgumentException when Herald serves no HTTP (the API server is off): the message names the key
     */
    void route(String method, String subpath, Handler handler);

    /** The path a route of {@code platform} is served at, for the set-up page and the log. */
    static String pathOf(Platform platform, String subpath) {
        return "/platforms/" + platform.id() + "/" + subpath.replaceFirst("^/+", "");
    }

    /** Answers one request; an exception is logged and answered 500 without its text. */
    @FunctionalInterface
    interface Handler {
        Response handle(Request request) throws Exception;
    }

    /**
     * One request.
     *
     * @param headers by lower-case name
     * @param query   the query parameters (first value of each), decoded
     * @param url     the full URL as the client addressed it (scheme, Host, path and query), for signatures over it
     */
    record Request(String method, String path, Map<String, List<String>> headers, Map<String, String> query, byte[] body,
            String remoteAddress, String url) {
        public Request {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
            Map<String, List<String>> h = new LinkedHashMap<>();
            (headers == null ? Map.<String, List<String>>of() : headers).forEach((k, v) -> h.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
            headers = Map.copyOf(h);
            query = query == null ? Map.of() : Map.copyOf(query);
            body = body == null ? new byte[0] : body;
        }

        /** The first value of header {@code name} (any case). */
        public Optional<String> header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v.getFirst());
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** What a route answers. */
    record Response(int status, String contentType, byte[] body) {
        public Response {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("status " + status + " is not an HTTP status");
            }
            contentType = contentType == null ? "text/plain; charset=utf-8" : contentType;
            body = body == null ? new byte[0] : body;
        }

        public static Response text(int status, String text) {
            return new Response(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
        }

        public static Response json(int status, String json) {
            return new Response(status, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }

        /** 200 with no body: what most webhook senders want, fast. */
        public static Response ok() {
            return new Response(200, null, new byte[0]);
        }
    }

    /** Herald serves no HTTP: a route cannot be added. */
    static InboundHttp none(Platform platform) {
        return (method, subpath, handler) -> {
            throw new IllegalArgumentException("it receives its messages by HTTP at "
                    + pathOf(platform, subpath) + ", which the API server's listener serves: set platforms.api_server.enabled: true");
        };
    }
}
