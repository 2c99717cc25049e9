package dev.herald.web;

import dev.herald.web.access.AuthThrottle;
import dev.herald.web.access.ClientConnections;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's one embedded HTTP server (Javalin on Jetty, handlers on virtual threads). Features contribute
 * their {@link Routes} before {@link #start()}; the server adds {@code GET /health} itself.
 *
 * <p>Every connection passes {@link ClientConnections} (a cap per client address and a deadline for
 * request headers); the kernel's accept queue holds {@value #ACCEPT_QUEUE} connections; errors the server
 * makes itself are JSON in each feature's own shape ({@link #errorFormat}).
 *
 * <p>Lifecycle: NEW (routes may be added) → RUNNING (bound; {@link #port()} is the real port, also for
 * port 0) → STOPPED. The methods that change the state are synchronized; the state field has one writer.
 *
 * <p>Restarts that hand over ({@link #sharePort}): the listener binds with {@code SO_REUSEPORT}, so the new process can
 * bind the same port while the old one still serves; the old one then stops accepting ({@link #stopAccepting}) and
 * finishes the requests it holds, and clients never find the port closed. So that two unrelated processes never
 * share a port by accident, a first process checks with a plain bind that nobody listens there yet; only the process
 * that takes over from the one listening skips the check.
 */
public final class WebServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebServer.class);

    /**
     * Where the server listens, and how it treats slow and many clients.
     *
     * @param host                     interface to bind, such as {@code 127.0.0.1} (loopback) or {@code 0.0.0.0}
     * @param port                     TCP port; 0 picks a free one (tests)
     * @param idleTimeout              how long a connection may sit idle between requests or I/O before Jetty closes it
     * @param headerTimeout            how long a client may take to send a request's line and headers (slowloris bound)
     * @param maxConnectionsPerAddress open connections one client address (an IPv6 /64) may hold; more are closed at once
     */
    public record Settings(String host, int port, Duration idleTimeout, Duration headerTimeout, int maxConnectionsPerAddress) {
        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
        public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
        public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 512;

        public Settings {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) {
                throw new IllegalArgumentException("web - host must not be blank (use 127.0.0.1 or 0.0.0.0)");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("web - port " + port + " is out of range (0-65535; 0 picks a free port)");
            }
            idleTimeout = idleTimeout == null ? DEFAULT_IDLE_TIMEOUT : idleTimeout;
            headerTimeout = headerTimeout == null ? DEFAULT_HEADER_TIMEOUT : headerTimeout;
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("web - idle timeout must be positive, was " + idleTimeout);
            }
            if (headerTimeout.isNegative() || headerTimeout.isZero()) {
                throw new IllegalArgumentException("web - header timeout must be positive, was " + headerTimeout);
            }
            if (maxConnectionsPerAddress < 1) {
                throw new IllegalArgumentException("web - max connections per address must be at least 1, was " + maxConnectionsPerAddress);
            }
        }

        public Settings(String host, int port, Duration idleTimeout) {
            this(host, port, idleTimeout, DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
        }

        public Settings(String host, int port) {
            this(host, port, DEFAULT_IDLE_TIMEOUT);
        }

        /** Loopback on a free port: what tests use. */
        public static Settings ephemeral() {
            return new Settings("127.0.0.1", 0);
        }

        /** The same listener with other slow/many-client limits. */
        public Settings withClientLimits(Duration newHeaderTimeout, int newMaxConnectionsPerAddress) {
            return new Settings(host, port, idleTimeout, newHeaderTimeout, newMaxConnectionsPerAddress);
        }
    }

    /** Writes the error body for a status the server itself produced (404, 405, 431, ...) on a feature's paths. */
    @FunctionalInterface
    public interface ErrorFormat {
        /** The JSON body for {@code status} with a readable {@code message}. */
        byte[] body(int status, String message);
    }

    private enum State { NEW, RUNNING, STOPPED }

    /** Connections waiting to be accepted that the kernel keeps (Jetty's accept queue): a burst of 500 needs no retry. */
    static final int ACCEPT_QUEUE = 1_024;

    private final Settings settings;
    private final List<Routes> contributions = new ArrayList<>();
    private final Map<String, ErrorFormat> errorFormats = new LinkedHashMap<>();
    private final AuthThrottle authThrottle = new AuthThrottle();
    private State state = State.NEW;
    private Javalin javalin;
    private ClientConnections connections;
    private int boundPort = -1;
    private boolean reusePort;
    private boolean takingOver;
    private ServerConnector connector;
    /** Set when this server stops accepting: every response then closes its connection. */
    private volatile boolean closing;

    public WebServer(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public Settings settings() {
        return settings;
    }

    /** The wrong-key throttle of this listener, shared by every feature that checks the key. */
    public AuthThrottle authThrottle() {
        return authThrottle;
    }

    /** Adds a feature's routes; only before {@link #start()}. */
    public synchronized WebServer add(Routes routes) {
        Objects.requireNonNull(routes, "routes");
        requireNew("add routes '" + routes.name() + "' to");
        contributions.add(routes);
        return this;
    }

    /**
     * Errors the server produces itself (no route: 404, wrong method: 405, headers too large: 431, a
     * malformed request: 400) on paths under {@code pathPrefix} get {@code format}'s body; only before
     * {@link #start()}. Other paths get {@code {"error": "..."}}.
     */
    public synchronized WebServer errorFormat(String pathPrefix, ErrorFormat format) {
        requireNew("add an error format to");
        errorFormats.put(Objects.requireNonNull(pathPrefix, "pathPrefix"), Objects.requireNonNull(format, "format"));
        return this;
    }

    private void requireNew(String what) {
        if (state != State.NEW) {
            throw new IllegalStateException("web - cannot " + what + " a server that is " + state.name().toLowerCase()
                    + "; do it before start()");
        }
    }

    /**
     * Binds with {@code SO_REUSEPORT} so that a restart's new process can listen on the port while this one still serves;
     * {@code takingOver} when this process is that new process (the port is in use by the process it takes over from).
     * Only before {@link #start()}.
     */
    public synchronized WebServer sharePort(boolean takingOver) {
        requireNew("share the port of");
        this.reusePort = true;
        this.takingOver = takingOver;
        return this;
    }

    /**
     * How long a server that stopped accepting still serves requests that arrive on its kept-alive connections (each
     * answer closes its connection) before it closes the connections still idle. A client that sends on an idle
     * connection just as the server closes it gets no answer at all (for a POST it cannot know whether to send again),
     * so the server first lets the busy clients move to the new process by themselves.
     */
    static final Duration LINGER = Duration.ofSeconds(1);

    /**
     * Stops accepting connections (a restart's new process accepts them now) while the requests on open connections run
     * to their end: for up to {@link #LINGER} requests on kept-alive connections are still served (each answer closes
     * its connection), then the connections still idle are closed. Idempotent; {@link #close()} still stops the server.
     */
    public synchronized void stopAccepting() {
        if (state == State.RUNNING && connector != null && connector.isOpen()) {
            closing = true;
            connector.close();
            int before = connections.openCount();
            long end = System.nanoTime() + LINGER.toNanos();
            while (connections.openCount() > 0 && System.nanoTime() < end) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            int idle = connections.closeIdle();
            log.info("web - port {} no longer accepts connections here; of {} open connection(s), {} moved on by themselves, {} idle "
                    + "one(s) closed, open requests finish (and close their connections)", boundPort, before,
                    Math.max(0, before - connections.openCount() - idle), idle);
        }
    }

    /** Binds and starts serving; returns once the port is bound. A taken port fails here, naming it. */
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("web - start() called on a server that is " + state.name().toLowerCase());
        }
        if (reusePort && !takingOver && settings.port() != 0) {
            requireFree();
        }
        long t0 = System.nanoTime();
        List<Routes> features = List.copyOf(contributions);
        ErrorBodies errors = new ErrorBodies(Map.copyOf(errorFormats));
        ClientConnections limits = new ClientConnections(settings.maxConnectionsPerAddress(), settings.headerTimeout());
        Javalin app = Javalin.create(config -> {
            config.concurrency.useVirtualThreads = true;
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.compressionStrategy = CompressionStrategy.NONE;
            config.http.prefer405over404 = true;
            config.jetty.addConnector((server, http) -> connector(server, http, limits));
            config.jetty.modifyServer(server -> server.setErrorHandler(errors.jettyHandler()));
            config.routes.before(dev.herald.web.access.ToolOriginFilter::refuseToolRequests);
            config.routes.after(ctx -> {
                if (closing) {
                    ctx.header("Connection", "close"); // keep-alive clients reconnect, to the process listening now
                }
            });
            config.routes.get("/health", ctx -> ctx.contentType("application/json").result("{\"status\":\"ok\"}"));
            for (Routes r : features) {
                r.register(config.routes);
            }
            for (int status : new int[] {404, 405}) {
                config.routes.error(status, errors::javalinError);
            }
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            state = State.STOPPED;
            safeStop(app);
            limits.close();
            throw new IllegalStateException("web - cannot listen on " + settings.host() + ":" + settings.port()
                    + " (" + e.getMessage() + "); pick a free port or stop the other process", e);
        }
        javalin = app;
        connections = limits;
        boundPort = app.port();
        state = State.RUNNING;
        log.info("web - listening on {}:{} (routes: health{}; started in {} ms)", settings.host(), boundPort,
                features.stream().map(r -> ", " + r.name()).reduce("", String::concat), (System.nanoTime() - t0) / 1_000_000);
    }

    /** A shared port must be free at a first start: a plain bind (without SO_REUSEPORT) fails when anyone listens there. */
    private void requireFree() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new java.net.InetSocketAddress(settings.host(), settings.port()));
        } catch (java.io.IOException e) {
            state = State.STOPPED;
            throw new IllegalStateException("web - cannot listen on " + settings.host() + ":" + settings.port() + " (" + e.getMessage()
                    + "); pick a free port or stop the other process", new java.net.BindException(e.getMessage()));
        }
    }

    private ServerConnector connector(Server server, HttpConfiguration http, ClientConnections limits) {
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setReusePort(reusePort);
        this.connector = connector;
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        connector.addEventListener(limits);
        return connector;
    }

    /** The bound port while running (the real one when configured as 0). */
    public synchronized int port() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("web - no port: the server is " + state.name().toLowerCase());
        }
        return boundPort;
    }

    /** {@code http://host:port}, for logs and tests. */
    public String baseUrl() {
        String host = switch (settings.host()) {
            case "0.0.0.0" -> "127.0.0.1";
            case "::", "[::]" -> "[::1]";
            default -> settings.host().contains(":") && !settings.host().startsWith("[") ? "[" + settings.host() + "]" : settings.host();
        };
        return "http://" + host + ":" + port();
    }

    public synchronized boolean running() {
        return state == State.RUNNING;
    }

    /** Stops serving and releases the port. Idempotent. */
    @Override
    public synchronized void close() {
        if (state == State.STOPPED) {
            return;
        }
        State was = state;
        state = State.STOPPED;
        if (was == State.RUNNING) {
            long t0 = System.nanoTime();
            safeStop(javalin);
            connections.close();
            log.info("web - stopped on port {} (in {} ms)", boundPort, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    private static void safeStop(Javalin app) {
        try {
            app.stop();
        } catch (RuntimeException e) {
            log.warn("web - stop failed ({}); the port may stay bound until exit", e.toString());
        }
    }
}
