package dev.herald.web;

import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Herald's one embedded HTTP server (Javalin on Jetty, handlers on virtual threads). Features contribute
 * their {@link Routes} before {@link #start()}; the server adds {@code GET /health} itself.
 *
 * <p>Lifecycle: NEW (routes may be added) → RUNNING (bound; {@link #port()} is the real port, also for
 * port 0) → STOPPED. The methods that change the state are synchronized; the state field has one writer.
 */
public final class WebServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebServer.class);

    /**
     * Where the server listens.
     *
     * @param host        interface to bind, such as {@code 127.0.0.1} (loopback) or {@code 0.0.0.0}
     * @param port        TCP port; 0 picks a free one (tests)
     * @param idleTimeout how long a connection may sit idle between requests or I/O before Jetty closes it
     */
    public record Settings(String host, int port, Duration idleTimeout) {
        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

        public Settings {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) {
                throw new IllegalArgumentException("web - host must not be blank (use 127.0.0.1 or 0.0.0.0)");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("web - port " + port + " is out of range (0-65535; 0 picks a free port)");
            }
            idleTimeout = idleTimeout == null ? DEFAULT_IDLE_TIMEOUT : idleTimeout;
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("web - idle timeout must be positive, was " + idleTimeout);
            }
        }

        public Settings(String host, int port) {
            this(host, port, DEFAULT_IDLE_TIMEOUT);
        }

        /** Loopback on a free port: what tests use. */
        public static Settings ephemeral() {
            return new Settings("127.0.0.1", 0);
        }
    }

    private enum State { NEW, RUNNING, STOPPED }

    private final Settings settings;
    private final List<Routes> contributions = new ArrayList<>();
    private State state = State.NEW;
    private Javalin javalin;
    private int boundPort = -1;

    public WebServer(Settings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public Settings settings() {
        return settings;
    }

    /** Adds a feature's routes; only before {@link #start()}. */
    public synchronized WebServer add(Routes routes) {
        Objects.requireNonNull(routes, "routes");
        if (state != State.NEW) {
            throw new IllegalStateException(
                    "web - cannot add routes '" + routes.name() + "' to a server that is " + state.name().toLowerCase()
                            + "; add every feature's routes before start()");
        }
        contributions.add(routes);
        return this;
    }

    /** Binds and starts serving; returns once the port is bound. A taken port fails here, naming it. */
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("web - start() called on a server that is " + state.name().toLowerCase());
        }
        long t0 = System.nanoTime();
        List<Routes> features = List.copyOf(contributions);
        Javalin app = Javalin.create(config -> {
            config.concurrency.useVirtualThreads = true;
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.http.compressionStrategy = CompressionStrategy.NONE;
            config.jetty.host = settings.host();
            config.jetty.port = settings.port();
            config.routes.before(dev.herald.web.access.ToolOriginFilter::refuseToolRequests);
            config.routes.get("/health", ctx -> ctx.contentType("application/json").result("{\"status\":\"ok\"}"));
            for (Routes r : features) {
                r.register(config.routes);
            }
        });
        try {
            app.start();
        } catch (RuntimeException e) {
            state = State.STOPPED;
            safeStop(app);
            throw new IllegalStateException("web - cannot listen on " + settings.host() + ":" + settings.port()
                    + " (" + e.getMessage() + "); pick a free port or stop the other process", e);
        }
        applyIdleTimeout(app);
        javalin = app;
        boundPort = app.port();
        state = State.RUNNING;
        log.info("web - listening on {}:{} (routes: health{}; started in {} ms)", settings.host(), boundPort,
                features.stream().map(r -> ", " + r.name()).reduce("", String::concat), (System.nanoTime() - t0) / 1_000_000);
    }

    private void applyIdleTimeout(Javalin app) {
        for (var connector : app.jettyServer().server().getConnectors()) {
            if (connector instanceof ServerConnector sc) {
                sc.setIdleTimeout(settings.idleTimeout().toMillis());
            }
        }
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
