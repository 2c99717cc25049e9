package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code http_get}: fetches an http or https URL within a time limit (the whole exchange, body included)
 * and a byte limit, and returns the status, type and text (HTML reduced to its text). Not dangerous.
 * The download runs on its own virtual thread; a timeout or interrupt closes the body and abandons it.
 */
public final class HttpGetTool implements Tool {
    private static final JsonNode SCHEMA = Args.schema(new String[] {"url"}, "url", "string", "an http:// or https:// URL");

    private final ToolSettings settings;
    private final HttpClient http;

    public HttpGetTool(ToolSettings settings) {
        this.settings = settings;
        this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(settings.httpTimeout()).build();
    }

    /** What was downloaded. */
    private record Fetched(int status, String contentType, byte[] body, long total, boolean cut) {
    }

    @Override
    public String name() {
        return "http_get";
    }

    @Override
    public String description() {
        return "Fetch a web page or API response with HTTP GET. Returns the status, content type and the body as text (HTML "
                + "reduced to text, long bodies shortened).";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return Danger.NONE;
    }

    @Override
    public String summarize(JsonNode args) {
        return "GET " + Texts.line(Args.string(args, "url", ""), 300);
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        URI uri;
        try {
            uri = URI.create(Args.string(args, "url").strip());
        } catch (IllegalArgumentException e) {
            return ToolResult.error("the url is not valid (" + e.getMessage() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            return ToolResult.error("only http:// and https:// URLs with a host can be fetched (got '" + Texts.line(uri.toString(), 200) + "')");
        }
        long start = System.nanoTime();
        AtomicReference<InputStream> body = new AtomicReference<>();
        CompletableFuture<Fetched> result = new CompletableFuture<>();
        Thread worker = Thread.ofVirtual().name("tool-http_get").start(() -> {
            try {
                result.complete(fetch(uri, body));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        Runnable abort = () -> {
            result.cancel(false);
            worker.interrupt();
            closeQuietly(body.get());
        };
        context.interrupt().onRaise(abort);
        try {
            return render(uri, result.get(settings.httpTimeout().toMillis(), TimeUnit.MILLISECONDS), start);
        } catch (TimeoutException e) {
            abort.run();
            return timedOut(uri);
        } catch (CancellationException | InterruptedException e) {
            abort.run();
            return ToolResult.interrupted("GET " + uri + " was stopped (" + context.interrupt().reason() + ")");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof java.net.http.HttpTimeoutException) {
                return timedOut(uri);
            }
            return ToolResult.error("GET " + uri + " failed (" + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")");
        } finally {
            context.interrupt().forget(abort);
        }
    }

    private ToolResult timedOut(URI uri) {
        return ToolResult.error("GET " + uri + " timed out after " + Texts.number(settings.httpTimeout().toMillis()) + " ms");
    }

    private Fetched fetch(URI uri, AtomicReference<InputStream> body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri).GET().timeout(settings.httpTimeout()).header("User-Agent", "Herald http_get")
                .header("Accept", "text/html,application/json,text/plain;q=0.9,*/*;q=0.5").build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            body.set(in);
            byte[] kept = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, settings.httpMaxBytes()));
            boolean cut = in.read() >= 0;
            String type = response.headers().firstValue("content-type").orElse("");
            return new Fetched(response.statusCode(), type, kept, kept.length + (cut ? 1 : 0), cut);
        }
    }

    private ToolResult render(URI uri, Fetched fetched, long start) {
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String type = fetched.contentType().toLowerCase(Locale.ROOT);
        String head = "HTTP " + fetched.status() + ", " + (type.isEmpty() ? "no content type" : type) + ", "
                + (fetched.cut() ? "more than " : "") + Texts.number(fetched.body().length) + " bytes in " + Texts.number(ms) + " ms"
                + (fetched.cut() ? " (download stopped at the " + Texts.number(settings.httpMaxBytes()) + "-byte limit)" : "");
        if (!textual(type)) {
            return ToolResult.ok(head + "\n(binary content, not shown)");
        }
        String text = new String(fetched.body(), charset(type));
        if (type.contains("html")) {
            text = Html.toText(text);
        }
        return ToolResult.ok(head + "\n\n" + Texts.clip(text, settings.resultLimit()));
    }

    private static boolean textual(String type) {
        return type.isEmpty() || type.startsWith("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
                || type.contains("yaml") || type.contains("csv");
    }

    private static Charset charset(String type) {
        int at = type.indexOf("charset=");
        if (at >= 0) {
            try {
                return Charset.forName(type.substring(at + 8).replaceAll("[\";].*", "").strip());
            } catch (IllegalArgumentException e) {
                return StandardCharsets.UTF_8;
            }
        }
        return StandardCharsets.UTF_8;
    }

    private static void closeQuietly(InputStream in) {
        if (in != null) {
            try {
                in.close();
            } catch (IOException ignored) {
                // the download is being abandoned; nothing to report
            }
        }
    }

    /** A rough HTML-to-text reduction: scripts, styles and tags dropped, common entities decoded, blank runs collapsed. */
    static final class Html {
        private Html() {
        }

        static String toText(String html) {
            String text = html.replaceAll("(?is)<(script|style|noscript|svg)[^>]*>.*?</\\1>", " ")
                    .replaceAll("(?is)<!--.*?-->", " ")
                    .replaceAll("(?i)<(br|/p|/div|/li|/h[1-6]|/tr)[^>]*>", "\n")
                    .replaceAll("(?s)<[^>]+>", " ")
                    .replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
                    .replace("&amp;", "&");
            return text.replaceAll("[ \\t\\x0B\\f\\r]+", " ").replaceAll("\\s*\\n\\s*", "\n").replaceAll("\\n{3,}", "\n\n").strip();
        }
    }
}
