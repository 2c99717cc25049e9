package dev.herald.platforms.xmpp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Prosody (Debian's {@code prosody}) for the tests, in the foreground on 127.0.0.1 with its configuration,
 * data and log in a temporary folder: the virtual host {@code localhost} with plain connections allowed (tests only),
 * stream management, offline storage and ping, no server-to-server, and rooms on {@code conference.localhost}.
 * Started once per test class; {@link #stop} and {@link #start} again keep the accounts (the data folder stays).
 */
final class Prosody implements AutoCloseable {
    static final String DOMAIN = "localhost";
    static final String MUC = "conference.localhost";
    static final String UPLOAD = "upload.localhost";
    /** The largest file the upload service takes. */
    static final int UPLOAD_LIMIT = 256 * 1024;

    final Path dir;
    final int port;
    /** The HTTP port of the upload service ({@code upload.localhost}, mod_http_file_share). */
    final int httpPort;
    private final Path config;
    private Process process;

    Prosody() throws IOException {
        this(false);
    }

    /**
     * A server; with {@code tls}, a certificate for {@code localhost} made here ({@link #certificate()}) and STARTTLS
     * offered (plain connections still allowed).
     */
    Prosody(boolean tls) throws IOException {
        dir = Files.createTempDirectory("herald-prosody");
        port = freePort();
        httpPort = freePort();
        config = dir.resolve("prosody.cfg.lua");
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(config, """
                run_as_root = true
                daemonize = false
                pidfile = "%1$s/prosody.pid"
                data_path = "%1$s/data"
                certificates = "%1$s/certs"
                log = { info = "%1$s/prosody.log" }
                interfaces = { "127.0.0.1" }
                c2s_interfaces = { "127.0.0.1" }
                c2s_ports = { %2$d }
                http_ports = { %5$d }
                http_interfaces = { "127.0.0.1" }
                https_ports = { }
                https_interfaces = { }
                http_external_url = "http://127.0.0.1:%5$d/"
                s2s_ports = { }
                modules_enabled = { "roster", "saslauth", "disco", "ping", "presence", "message", "iq", "offline", "smacks", "posix"%4$s }
                modules_disabled = { "s2s" }
                c2s_require_encryption = false
                allow_unencrypted_plain_auth = true
                authentication = "internal_plain"
                storage = "internal"
                VirtualHost "localhost"
                %3$s
                Component "conference.localhost" "muc"
                Component "upload.localhost" "http_file_share"
                http_file_share_size_limit = %6$d
                http_host = "127.0.0.1"
                """.formatted(dir, port, tls ? "ssl = { certificate = \"" + dir + "/cert.pem\"; key = \"" + dir + "/key.pem\"; }" : "", tls ? ", \"tls\"" : "",
                        httpPort, UPLOAD_LIMIT),
                StandardCharsets.UTF_8);
        if (tls) {
            run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost", "-keyout", dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString());
        }
    }

    /** The server's certificate (PEM), for a client that trusts it. */
    Path certificate() {
        return dir.resolve("cert.pem");
    }

    private void run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
        p.getOutputStream().close();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + Files.readString(dir.resolve("openssl.log")));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Creates the account {@code user}@localhost. */
    Prosody register(String user, String password) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("prosodyctl", "--config", config.toString(), "register", user, DOMAIN, password)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prosodyctl.log").toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("prosodyctl register " + user + " failed: " + Files.readString(dir.resolve("prosodyctl.log")));
        }
        return this;
    }

    /** Starts the server; returns once its port accepts connections. */
    Prosody start() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("prosody", "--config", config.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()));
        pb.environment().put("PROSODY_CONFIG", config.toString());
        process = pb.start();
        process.getOutputStream().close();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("prosody exited with " + process.exitValue() + ": " + Files.readString(dir.resolve("stdout.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return this;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IOException("prosody did not listen on port " + port + " within 20 s");
    }

    /** Stops the server (SIGTERM) and waits for it to end. */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        process = null;
    }

    /** The server's log so far (for a failing test's message). */
    String log() {
        try {
            return Files.readString(dir.resolve("prosody.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() throws Exception {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

}
