package dev.herald.agent.egress;

import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.ToolOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.SocketAddressResolver;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;

/**
 * The HTTP client of the agent's own fetches, with the {@link EgressPolicy} as its address resolver.
 *
 * <p>Jetty's client asks its {@link SocketAddressResolver} for the addresses of every new connection; this
 * one resolves the name once, judges every address, and hands Jetty only those, so the socket connects to
 * an address that was checked while the {@code Host} header and TLS SNI keep the name. Redirects are followed
 * here, not by Jetty, at most {@link #MAX_REDIRECTS} hops, each a new request that passes the same resolver.
 *
 * <p>Every request carries {@link ToolOrigin#HEADER} (Herald's web server refuses it on every route) and no
 * credentials: the cookie store is empty, URLs with a user name or password are refused, and no
 * authentication is configured. The client is started on first use, on daemon threads.
 */
public final class GuardedHttp implements AutoCloseable {
    /** Most redirects one fetch follows. */
    public static final int MAX_REDIRECTS = 5;
    private static final String ACCEPT = "text/html,application/json,text/plain;q=0.9,*/*;q=0.5";

    /**
     * What one fetch received.
     *
     * @param uri         the URL that answered (after redirects)
     * @param status      its HTTP status
     * @param contentType its Content-Type header, or empty
     * @param body        the body's first bytes, at most the limit
     * @param cut         true when the body was longer than the limit
     * @param redirects   how many redirects led there
     */
    public record Fetched(URI uri, int status, String contentType, byte[] body, boolean cut, int redirects) {
    }

    /** A fetch refused before or while connecting (bad URL, the egress guard, too many redirects). */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final EgressPolicy policy;
    private final Duration connectTimeout;
    private HttpClient client;
    private boolean closed;

    public GuardedHttp(EgressPolicy policy, Duration connectTimeout) {
        this.policy = policy;
        this.connectTimeout = connectTimeout;
    }

    /**
     * GETs {@code uri}, following redirects, until {@code deadlineNanos} ({@link System#nanoTime()} time).
     * Raising {@code interrupt} aborts the request in flight at once.
     *
     * @throws Refused              the URL or a redirect target is not allowed (the message says why and what opens it)
     * @throws TimeoutException     the deadline passed
     * @throws InterruptedIOException the interrupt was raised
     * @throws IOException          the exchange failed
     */
    public Fetched get(URI uri, long deadlineNanos, long maxBytes, Interrupt interrupt)
            throws Refused, TimeoutException, IOException {
        AtomicReference<Request> current = new AtomicReference<>();
        Runnable abort = () -> {
            Request r = current.get();
            if (r != null) {
                r.abort(new InterruptedIOException("stopped (" + interrupt.reason() + ")"));
            }
        };
        interrupt.onRaise(abort);
        try {
            URI target = checked(uri, null);
            URI from = null;
            for (int hop = 0; ; hop++) {
                Hop answer;
                try {
                    answer = send(target, deadlineNanos, maxBytes, interrupt, current);
                } catch (Refused refused) {
                    throw from == null ? refused : new Refused(refused.getMessage() + " (" + from + " redirected to " + target + ")");
                }
                if (answer.location() == null) {
                    Fetched f = answer.fetched();
                    return new Fetched(target, f.status(), f.contentType(), f.body(), f.cut(), hop);
                }
                if (hop == MAX_REDIRECTS) {
                    throw new Refused("stopped after " + MAX_REDIRECTS + " redirects (the last one from " + target + " to "
                            + answer.location() + ")");
                }
                from = target;
                target = checked(resolve(target, answer.location()), target);
            }
        } finally {
            interrupt.forget(abort);
        }
    }

    /** One request's answer: the fetched response, or where it redirects. */
    private record Hop(Fetched fetched, String location) {
    }

    private Hop send(URI target, long deadlineNanos, long maxBytes, Interrupt interrupt, AtomicReference<Request> current)
            throws Refused, TimeoutException, IOException {
        long left = remainingMillis(deadlineNanos);
        Request request = client().newRequest(target).method(HttpMethod.GET).followRedirects(false).timeout(left, TimeUnit.MILLISECONDS)
                .headers(h -> h.put(ToolOrigin.HEADER, ToolOrigin.TOKEN).put(HttpHeader.ACCEPT, ACCEPT));
        current.set(request);
        if (interrupt.isRaised()) {
            throw new InterruptedIOException("stopped (" + interrupt.reason() + ")");
        }
        InputStreamResponseListener listener = new InputStreamResponseListener();
        request.send(listener);
        Response response;
        try {
            response = listener.get(left, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw failure(e.getCause(), target);
        } catch (InterruptedException e) {
            request.abort(e);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("stopped (thread interrupted)");
        } catch (TimeoutException e) {
            request.abort(e);
            throw e;
        }
        try (InputStream in = listener.getInputStream()) {
            int status = response.getStatus();
            String location = response.getHeaders().get(HttpHeader.LOCATION);
            if (isRedirect(status) && location != null && !location.isBlank()) {
                in.readNBytes(64 * 1024); // a redirect's body is short; reading it lets the connection be reused
                return new Hop(null, location.strip());
            }
            byte[] kept = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes));
            boolean cut = in.read() >= 0;
            String type = Optional.ofNullable(response.getHeaders().get(HttpHeader.CONTENT_TYPE)).orElse("");
            return new Hop(new Fetched(target, status, type, kept, cut, 0), null);
        } catch (IOException e) {
            throw failure(e, target);
        } finally {
            current.compareAndSet(request, null);
        }
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    /** The exception to throw for a failed exchange: the guard's refusal, a timeout, or the I/O failure. */
    private static IOException failure(Throwable cause, URI target) throws Refused, TimeoutException {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof EgressRefused refused) {
                throw new Refused(refused.getMessage());
            }
            if (t instanceof TimeoutException timeout) {
                throw timeout;
            }
            if (t instanceof InterruptedIOException stopped) {
                return stopped;
            }
        }
        if (cause instanceof IOException io) {
            return io;
        }
        return new IOException(cause == null ? "GET " + target + " failed" : cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()), cause);
    }

    /**
     * {@code uri} when it may be requested: http or https, a host, no user name or password. A host written as
     * an unusual IPv4 spelling ({@code 0x7f.1}) is rewritten to its dotted form so Jetty can parse it; the guard
     * judges it either way.
     */
    static URI checked(URI uri, URI from) throws Refused {
        String via = from == null ? "" : " (redirected from " + from + ")";
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new Refused("only http:// and https:// URLs can be fetched (got '" + clip(uri.toString()) + "')" + via);
        }
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isBlank()) {
            throw new Refused("the URL '" + clip(uri.toString()) + "' has no host" + via);
        }
        if (uri.getRawUserInfo() != null || authority.contains("@")) {
            throw new Refused("the URL carries a user name or password; http_get never sends credentials" + via);
        }
        if (uri.getHost() != null) {
            return uri;
        }
        int colon = authority.lastIndexOf(':');
        String host = colon >= 0 && !authority.endsWith("]") ? authority.substring(0, colon) : authority;
        String port = colon >= 0 && !authority.endsWith("]") ? authority.substring(colon) : "";
        var literal = IpLiteral.parse(host);
        if (literal.isEmpty()) {
            throw new Refused("the URL's host '" + clip(host) + "' is not a valid host name" + via);
        }
        String rebuilt = scheme + "://" + literal.get().getHostAddress() + port + (uri.getRawPath() == null ? "" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        try {
            return new URI(rebuilt);
        } catch (java.net.URISyntaxException e) {
            throw new Refused("the URL '" + clip(uri.toString()) + "' is not valid (" + e.getMessage() + ")" + via);
        }
    }

    private static URI resolve(URI base, String location) throws Refused {
        try {
            return base.resolve(new URI(location.replace(" ", "%20")));
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            throw new Refused(base + " redirected to '" + clip(location) + "', which is not a valid URL");
        }
    }

    private static String clip(String text) {
        return text.length() <= 200 ? text : text.substring(0, 199) + "…";
    }

    private static long remainingMillis(long deadlineNanos) throws TimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (left <= 0) {
            throw new TimeoutException("the time limit passed");
        }
        return left;
    }

    private synchronized HttpClient client() throws IOException {
        if (closed) {
            throw new IOException("http_get's client is closed (Herald is stopping)");
        }
        if (client == null) {
            HttpClient c = new HttpClient();
            QueuedThreadPool threads = new QueuedThreadPool(16, 0);
            threads.setName("http_get");
            threads.setDaemon(true);
            c.setExecutor(threads);
            c.setScheduler(new ScheduledExecutorScheduler("http_get-timer", true));
            c.setSocketAddressResolver(new GuardResolver(policy));
            c.setFollowRedirects(false);
            c.setHttpCookieStore(new HttpCookieStore.Empty());
            c.setConnectTimeout(connectTimeout.toMillis());
            c.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "Herald http_get"));
            try {
                c.start();
            } catch (Exception e) {
                throw new IOException("http_get's client could not start (" + e + ")", e);
            }
            client = c;
        }
        return client;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            try {
                client.stop();
            } catch (Exception e) {
                // stopping at exit; nothing is waiting for this client any more
            }
            client = null;
        }
    }

    /** The egress guard as Jetty's resolver: one lookup per new connection, only admitted addresses returned. */
    private record GuardResolver(EgressPolicy policy) implements SocketAddressResolver {
        @Override
        public void resolve(String host, int port, java.util.Map<String, Object> context,
                org.eclipse.jetty.util.Promise<List<InetSocketAddress>> promise) {
            Thread.ofVirtual().name("http_get-resolve").start(() -> {
                try {
                    promise.succeeded(policy.admit(host).stream().map(a -> new InetSocketAddress(a, port)).toList());
                } catch (EgressRefused | RuntimeException e) {
                    promise.failed(e);
                }
            });
        }
    }
}
