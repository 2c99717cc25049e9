package dev.herald.web.access;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slow and many clients, at the connection level (a Jetty {@link Connection.Listener} on the server's
 * connector): at most {@code maxPerAddress} open connections per client ({@link ClientAddress#bucket}),
 * and a deadline for reading a request's headers.
 *
 * <p>The header deadline. Jetty reads without a thread per connection, so a slow client costs a socket,
 * not a thread; but its idle timeout restarts with every byte, so a client trickling one header byte a
 * second would hold its socket forever (slowloris). A sweep every {@code period} looks at each HTTP/1
 * connection's parser (its state is volatile, so reading it from the sweep thread is safe): a connection
 * still reading a request line or headers {@code headerTimeout} after it opened (first request) or after
 * the request's first byte (later requests on a kept-alive connection) is closed. Bodies and responses are
 * not covered: the handlers bound them ({@code max_body_bytes}, the request timeout).
 *
 * <p>The connection cap. A connection over the cap is closed as soon as it opens, before a byte is read.
 * Both refusals are logged at most once a minute per client ({@link ThrottledLog}).
 */
public final class ClientConnections implements Connection.Listener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger("web");
    private static final long LOG_INTERVAL = TimeUnit.MINUTES.toNanos(1);

    private record Tracked(String client, long openedAt, long[] headerSince) {
    }

    private final int maxPerAddress;
    private final long headerTimeoutNanos;
    private final Map<String, AtomicInteger> perClient = new ConcurrentHashMap<>();
    private final Map<Connection, Tracked> open = new ConcurrentHashMap<>();
    private final ThrottledLog capLog = new ThrottledLog(log, LOG_INTERVAL);
    private final ThrottledLog slowLog = new ThrottledLog(log, LOG_INTERVAL);
    private final ScheduledExecutorService sweeper;

    public ClientConnections(int maxPerAddress, Duration headerTimeout) {
        if (maxPerAddress < 1) {
            throw new IllegalArgumentException("web - max connections per address must be at least 1, was " + maxPerAddress);
        }
        if (headerTimeout.isNegative() || headerTimeout.isZero()) {
            throw new IllegalArgumentException("web - header timeout must be positive, was " + headerTimeout);
        }
        this.maxPerAddress = maxPerAddress;
        this.headerTimeoutNanos = headerTimeout.toNanos();
        long period = Math.clamp(headerTimeout.toMillis() / 4, 50, 1_000);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "herald-web-slow-clients");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onOpened(Connection connection) {
        String client = ClientAddress.bucket(connection.getEndPoint().getRemoteSocketAddress());
        int now = perClient.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
        open.put(connection, new Tracked(client, System.nanoTime(), new long[1]));
        if (now > maxPerAddress) {
            capLog.event(client, System.nanoTime(), n -> "web - " + client + " opened more than " + maxPerAddress
                    + " connections at once (" + n + " refused since the last line); closing the extra ones");
            connection.getEndPoint().close();
        }
    }

    @Override
    public void onClosed(Connection connection) {
        Tracked t = open.remove(connection);
        if (t != null) {
            perClient.computeIfPresent(t.client(), (c, n) -> n.decrementAndGet() <= 0 ? null : n);
        }
    }

    /** Open connections counted for {@code client} (tests and diagnostics). */
    public int openFrom(String client) {
        AtomicInteger n = perClient.get(client);
        return n == null ? 0 : n.get();
    }

    private void sweep() {
        long now = System.nanoTime();
        try {
            for (Map.Entry<Connection, Tracked> e : open.entrySet()) {
                if (e.getKey() instanceof HttpConnection http && tooSlow(http, e.getValue(), now)) {
                    Tracked t = e.getValue();
                    slowLog.event(t.client(), now, n -> "web - " + t.client() + " sent request headers too slowly (over "
                            + headerTimeoutNanos / 1_000_000 + " ms; " + n + " connection(s) closed since the last line)");
                    http.getEndPoint().close();
                }
            }
        } catch (RuntimeException e) {
            log.warn("web - the slow-client sweep failed ({}); it runs again shortly", e.toString());
        }
    }

    /** True when the connection has been reading one request's line and headers for longer than the deadline. */
    private boolean tooSlow(HttpConnection http, Tracked t, long now) {
        HttpParser parser = http.getParser();
        boolean first = http.getMessagesIn() == 0;
        boolean readingHeaders = parser.inHeaderState() && (first || !parser.isStart());
        if (!readingHeaders) {
            t.headerSince()[0] = 0;
            return false;
        }
        if (t.headerSince()[0] == 0) {
            t.headerSince()[0] = first ? t.openedAt() : now;
        }
        return now - t.headerSince()[0] > headerTimeoutNanos;
    }

    /**
     * Closes the connections that are between requests (kept alive, or opened and not yet sent on), so that their clients
     * open new ones, which reach the process now listening; connections serving a request are left to finish it.
     * Returns how many it closed.
     */
    /** How many connections are open now (idle, serving, streaming). */
    public int openCount() {
        return open.size();
    }

    public int closeIdle() {
        int closed = 0;
        for (Connection c : open.keySet()) {
            if (c instanceof HttpConnection http && http.getParser().isStart()) {
                http.getEndPoint().close();
                closed++;
            }
        }
        return closed;
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
