package dev.herald.app.process;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import dev.herald.app.runtime.Wiring;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.StopKind;
import dev.herald.web.WebServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * Herald started in this JVM for a test, as {@code herald run} starts it but without a process of its own: the YAML is
 * written to {@code config.yaml} in the home, loaded, wired (store, gateway, agent, web server), and the web server and
 * the gateway are started. Where the YAML says {@value #PORT}, a free loopback port is put in (for
 * {@code platforms.api_server.port}), which {@link #port()} and {@link #uri(String)} then give. {@link #close()} stops the
 * gateway (a shutdown) and closes the wiring; it does nothing when nothing was started, and a start that fails closes
 * what it built before it throws.
 *
 * <pre>{@code
 * herald = InProcessHerald.in(home).start("platforms:\n  api_server:\n    port: {port}\n");
 * }</pre>
 */
public final class InProcessHerald implements AutoCloseable {
    /** Where the YAML wants the free loopback port. */
    public static final String PORT = "{port}";

    private final Path home;
    private Map<String, String> env = Map.of();
    private boolean demo;
    private Wiring wiring;
    private int port = -1;

    private InProcessHerald(Path home) {
        this.home = home;
    }

    /** A Herald not started yet, on {@code home} (made if missing). */
    public static InProcessHerald in(Path home) {
        return new InProcessHerald(home);
    }

    /** The environment that {@code ${NAME}} in the YAML reads (none unless given). */
    public InProcessHerald env(Map<String, String> env) {
        this.env = env;
        return this;
    }

    /** Uses the demo model where the YAML names no model server ({@code herald run --demo}). */
    public InProcessHerald demo() {
        this.demo = true;
        return this;
    }

    /** Writes {@code yaml} (with {@value #PORT} replaced) to the home's {@code config.yaml} and starts Herald on it. */
    public InProcessHerald start(String yaml) throws IOException {
        if (yaml.contains(PORT)) {
            try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            yaml = yaml.replace(PORT, Integer.toString(port));
        }
        Files.createDirectories(home);
        Path file = Files.writeString(home.resolve("config.yaml"), yaml);
        HeraldConfig config = new ConfigLoader(env).load(file, true, home).config();
        wiring = Wiring.build(config, home, demo, Clock.systemUTC());
        try {
            wiring.web().ifPresent(WebServer::start);
            wiring.gateway().start(Gateway.StartOptions.normal());
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        return this;
    }

    public Wiring wiring() {
        if (wiring == null) {
            throw new IllegalStateException("Herald is not running");
        }
        return wiring;
    }

    /** The API server's port: the one put in for {@value #PORT}. */
    public int port() {
        if (port < 0) {
            throw new IllegalStateException("the YAML asked for no port: write " + PORT + " where it goes");
        }
        return port;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** {@code path} (from its leading slash) on the API server. */
    public URI uri(String path) {
        return URI.create(baseUrl() + path);
    }

    /** Stops the gateway (a shutdown; a second stop waits for the first) and closes the wiring; once is enough. */
    @Override
    public void close() {
        Wiring w = wiring;
        wiring = null;
        if (w != null) {
            try {
                w.gateway().stop(StopKind.SHUTDOWN, false);
            } finally {
                w.close();
            }
        }
    }
}
