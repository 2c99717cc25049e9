package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.agent.egress.EgressPolicy;
import dev.herald.agent.egress.GuardedHttp;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code http_get}: fetches an http or https URL and returns the status, type and text (HTML reduced to its
 * text). Not dangerous, because it cannot reach what a chat user must not: every connection goes through the
 * egress guard ({@link GuardedHttp}, {@link EgressPolicy}: no loopback, private, link-local or metadata address
 * unless {@code agent.http_allow} opens it; redirects checked hop by hop), carries Herald's tool marker (its own
 * web server refuses it) and no credentials.
 *
 * <p>One time limit ({@code agent.http_timeout_seconds}) bounds the whole call: connecting, redirects, the body
 * (at most {@code agent.http_max_bytes}) and turning it into text, which checks the limit and the turn's
 * interrupt as it goes ({@link WorkBudget}). A stop aborts the request in flight.
 */
public final class HttpGetTool implements Tool, AutoCloseable {
    private static final JsonNode SCHEMA = Args.schema(new String[] {"url"}, "url", "string", "an http:// or https:// URL");

    private final ToolSettings settings;
    private final GuardedHttp http;

    public HttpGetTool(ToolSettings settings) {
        this(settings, new EgressPolicy(settings.httpAllow(), EgressPolicy.Resolver.SYSTEM));
    }

    /** With an explicit policy (tests give it a resolver stub). */
    public HttpGetTool(ToolSettings settings, EgressPolicy policy) {
        this.settings = settings;
        this.http = new GuardedHttp(policy, settings.httpTimeout());
    }

    @Override
    public String name() {
        return "http_get";
    }

    @Override
    public String description() {
        return "Fetch a public web page or API response with HTTP GET. Returns the status, content type and the body as text (HTML "
                + "reduced to text, long bodies shortened). Local and private network addresses are refused unless the operator "
                + "allowed them.";
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
        String text = Args.string(args, "url").strip();
        URI uri;
        try {
            uri = new URI(text);
        } catch (java.net.URISyntaxException e) {
            return ToolResult.error("the url is not valid (" + e.getMessage() + ")");
        }
        long start = System.nanoTime();
        WorkBudget budget = new WorkBudget(start + settings.httpTimeout().toNanos(), context.interrupt());
        try {
            GuardedHttp.Fetched fetched = http.get(uri, budget.deadlineNanos(), settings.httpMaxBytes(), context.interrupt());
            return render(fetched, start, budget);
        } catch (GuardedHttp.Refused e) {
            return ToolResult.error("refused: " + e.getMessage());
        } catch (TimeoutException e) {
            return timedOut(uri);
        } catch (InterruptedIOException e) {
            return stopped(uri, context);
        } catch (IOException e) {
            if (context.interrupt().isRaised()) {
                return stopped(uri, context);
            }
            return ToolResult.error("GET " + uri + " failed (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": "
                    + Texts.line(e.getMessage(), 300)) + ")");
        } catch (WorkBudget.Exhausted e) {
            if (e.interrupted()) {
                return stopped(uri, context);
            }
            return ToolResult.error("GET " + uri + ": turning the page into text did not finish within the "
                    + Texts.number(settings.httpTimeout().toMillis()) + " ms limit (agent.http_timeout_seconds); the page was not shown");
        }
    }

    private static ToolResult stopped(URI uri, ToolContext context) {
        return ToolResult.interrupted("GET " + uri + " was stopped (" + context.interrupt().reason() + ")");
    }

    private ToolResult timedOut(URI uri) {
        return ToolResult.error("GET " + uri + " timed out after " + Texts.number(settings.httpTimeout().toMillis()) + " ms");
    }

    private ToolResult render(GuardedHttp.Fetched fetched, long start, WorkBudget budget) {
        String type = fetched.contentType().toLowerCase(Locale.ROOT);
        String head = "HTTP " + fetched.status() + ", " + (type.isEmpty() ? "no content type" : type) + ", "
                + (fetched.cut() ? "more than " : "") + Texts.number(fetched.body().length) + " bytes in "
                + Texts.number(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)) + " ms"
                + (fetched.cut() ? " (download stopped at the " + Texts.number(settings.httpMaxBytes()) + "-byte limit)" : "")
                + (fetched.redirects() > 0 ? " from " + fetched.uri() + " after " + fetched.redirects() + " redirect(s)" : "");
        if (!textual(type)) {
            return ToolResult.ok(head + "\n(binary content, not shown)");
        }
        String text = new String(fetched.body(), charset(type));
        if (type.contains("html")) {
            text = HtmlText.toText(text, budget);
        }
        return ToolResult.ok(head + "\n\n" + Texts.clip(text, settings.resultLimit()));
    }

    private static boolean textual(String type) {
        return type.isEmpty() || type.startsWith("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
                || type.contains("yaml") || type.contains("csv");
    }

    private static Charset charset(String type) {
        int at = type.indexOf("charset=");
        if (at < 0) {
            return StandardCharsets.UTF_8;
        }
        String name = type.substring(at + 8);
        name = name.startsWith("\"") ? name.substring(1) : name;
        int end = 0;
        while (end < name.length() && name.charAt(end) != ';' && name.charAt(end) != '"' && !Character.isWhitespace(name.charAt(end))) {
            end++;
        }
        try {
            return Charset.forName(name.substring(0, end));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** Stops the HTTP client's threads. */
    @Override
    public void close() {
        http.close();
    }
}
