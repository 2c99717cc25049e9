package dev.herald.platforms.irc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real IRC server for the tests: Debian's ngircd, run in the foreground ({@code ngircd -n -f FILE}) on a free loopback
 * port with a configuration written into a temporary folder. Penalties are off (the tests' own pace is the flood
 * control under test) and nicks may be 30 characters, so each test can use nicks of its own. {@link #kill} ends it as a
 * crash would and {@link #start} brings it back on the same port.
 */
final class Ngircd implements AutoCloseable {
    static final String BINARY = "/usr/sbin/ngircd";
    static final String NAME = "irc.herald.test";

    private final Path dir;
    private final int port;
    private Process process;

    private Ngircd(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** A server on a free loopback port, started. */
    static Ngircd start() throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: install Debian's ngircd (apt-get install ngircd); bin/test does");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Ngircd server = new Ngircd(Files.createTempDirectory("herald-ngircd-"), port);
        server.restart();
        return server;
    }

    int port() {
        return port;
    }

    /** Starts the server (again), on the same port; returns once it accepts connections. */
    void restart() throws IOException, InterruptedException {
        Path conf = dir.resolve("ngircd.conf");
        Files.writeString(conf, """
                [Global]
                Name = %s
                Info = Herald test server
                AdminInfo1 = Herald tests
                AdminInfo2 = loopback
                AdminEMail = tests@herald.invalid
                Listen = 127.0.0.1
                Ports = %d
                MotdPhrase = "test server"
                [Limits]
                MaxConnectionsIP = 0
                MaxNickLength = 30
                MaxPenaltyTime = 0
                PingTimeout = 120
                PongTimeout = 20
                [Options]
                PAM = no
                DNS = no
                Ident = no
                """.formatted(NAME, port));
        process = new ProcessBuilder(BINARY, "-n", "-f", conf.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("ngircd.log").toFile())).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("ngircd exited at start (" + process.exitValue() + "): " + Files.readString(dir.resolve("ngircd.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("ngircd did not accept connections on port " + port + " within 10 s");
    }

    /** Ends the server at once (SIGKILL): every connection drops without a word. */
    void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}
