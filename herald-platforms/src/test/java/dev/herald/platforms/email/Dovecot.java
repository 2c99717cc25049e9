package dev.herald.platforms.email;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Dovecot IMAP server (Debian's {@code dovecot-imapd}) for the email tests, run in the foreground
 * ({@code dovecot -F -c FILE}) on 127.0.0.1 with everything in a temporary folder: plain IMAP (no TLS), PLAIN login
 * from a passwd file, one Maildir per user owned by the mail user (nobody when the tests run as root, else the
 * current user). A small raw IMAP client places mail with {@code APPEND} (as mail arriving) and reads flags.
 */
final class Dovecot implements AutoCloseable {
    static final String BINARY = "/usr/sbin/dovecot";
    static final String USER = "herald";
    static final String PASSWORD = "imap-secret-password";

    private final Path dir;
    private final int port;
    private Process process;

    private final boolean idle;

    private Dovecot(Path dir, int port, boolean idle) {
        this.dir = dir;
        this.port = port;
        this.idle = idle;
    }

    /** Starts a server with the user {@value #USER}; fails (never skips) when Dovecot is not installed. */
    static Dovecot start() throws IOException, InterruptedException {
        return start(true);
    }

    /** A server that offers IDLE or, with {@code idle} false, advertises a capability list without it. */
    static Dovecot start(boolean idle) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException("email tests need Dovecot (" + BINARY + "): apt-get install dovecot-imapd (bin/test installs it)");
        }
        Path dir = Files.createTempDirectory("herald-dovecot-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Dovecot d = new Dovecot(dir, freePort(), idle);
        d.configure();
        d.run();
        return d;
    }

    int port() {
        return port;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void configure() throws IOException, InterruptedException {
        boolean root = "root".equals(System.getProperty("user.name"));
        String user = root ? "nobody" : System.getProperty("user.name");
        String group = root ? "nogroup" : user;
        String uid = root ? "65534" : id("-u");
        String gid = root ? "65534" : id("-g");
        Path mail = Files.createDirectories(dir.resolve("mail"));
        Files.createDirectories(dir.resolve("run"));
        Files.createDirectories(dir.resolve("state"));
        if (root) {
            new ProcessBuilder("chown", "-R", uid + ":" + gid, mail.toString()).inheritIO().start().waitFor();
        }
        Files.writeString(dir.resolve("passwd"), USER + ":{PLAIN}" + PASSWORD + "\n");
        Files.writeString(dir.resolve("dovecot.conf"), """
                protocols = imap
                listen = 127.0.0.1
                base_dir = %1$s/run
                state_dir = %1$s/state
                log_path = %1$s/dovecot.log
                info_log_path = %1$s/dovecot.log
                ssl = no
                disable_plaintext_auth = no
                auth_mechanisms = plain login
                default_internal_user = %2$s
                default_internal_group = %3$s
                default_login_user = %2$s
                mail_location = maildir:%1$s/mail/%%u
                first_valid_uid = %4$s
                passdb {
                  driver = passwd-file
                  args = scheme=PLAIN username_format=%%u %1$s/passwd
                }
                userdb {
                  driver = static
                  args = uid=%4$s gid=%5$s home=%1$s/mail/%%u
                }
                service imap-login {
                  chroot =
                  inet_listener imap {
                    address = 127.0.0.1
                    port = %6$d
                  }
                  inet_listener imaps {
                    port = 0
                  }
                }
                service anvil {
                  chroot =
                }
                """.formatted(dir, user, group, uid, gid, port)
                + (idle ? "" : "imap_capability = IMAP4rev1 LITERAL+ UIDPLUS NAMESPACE\n"));
    }

    private static String id(String flag) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("id", flag).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return out;
    }

    /** Starts the server process; returns once it greets. */
    void run() throws IOException, InterruptedException {
        process = new ProcessBuilder(BINARY, "-F", "-c", dir.resolve("dovecot.conf").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.txt").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                s.setSoTimeout(2000);
                String greeting = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
                if (greeting != null && greeting.startsWith("* OK")) {
                    return;
                }
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("dovecot did not start on port " + port + ": " + log());
    }

    /** Stops the server (SIGTERM to the master, which ends its children) and waits for it. */
    void halt() throws InterruptedException {
        if (process != null && process.isAlive()) {
            ProcessHandle.of(process.pid()).ifPresent(h -> h.descendants().forEach(ProcessHandle::destroy));
            process.destroy();
            process.waitFor();
        }
        // the port is free once nothing accepts there
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                Thread.sleep(50);
            } catch (IOException closed) {
                return;
            }
        }
    }

    String log() {
        try {
            return Files.exists(dir.resolve("dovecot.log")) ? Files.readString(dir.resolve("dovecot.log")) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        halt();
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    // ---- a raw IMAP client for the tests -------------------------------------------------------------

    /** Places {@code raw} in the user's INBOX as newly arrived mail; returns its UID. */
    long append(byte[] raw) throws IOException {
        try (Client c = new Client()) {
            String answer = c.literal("APPEND INBOX", raw);
            Matcher m = Pattern.compile("APPENDUID \\d+ (\\d+)").matcher(answer);
            if (!m.find()) {
                throw new IOException("APPEND answered without APPENDUID: " + answer);
            }
            return Long.parseLong(m.group(1));
        }
    }

    long append(String raw) throws IOException {
        return append(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** The flags of mail {@code uid}, e.g. {@code \Seen}. */
    String flags(long uid) throws IOException {
        try (Client c = new Client()) {
            c.command("SELECT INBOX");
            String answer = c.command("UID FETCH " + uid + " (FLAGS)");
            Matcher m = Pattern.compile("FLAGS \\(([^)]*)\\)").matcher(answer);
            return m.find() ? m.group(1) : "";
        }
    }

    /** A logged-in IMAP connection speaking just enough of the protocol for the tests. */
    final class Client implements AutoCloseable {
        private final Socket socket;
        private final BufferedReader in;
        private final OutputStream out;
        private int tag;

        Client() throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            out = socket.getOutputStream();
            in.readLine();
            command("LOGIN " + USER + " " + PASSWORD);
        }

        String command(String line) throws IOException {
            String t = "t" + (++tag);
            out.write((t + " " + line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return until(t);
        }

        String literal(String line, byte[] bytes) throws IOException {
            String t = "t" + (++tag);
            out.write((t + " " + line + " {" + bytes.length + "}\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String go = in.readLine();
            if (go == null || !go.startsWith("+")) {
                throw new IOException("server refused the literal: " + go);
            }
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return until(t);
        }

        private String until(String t) throws IOException {
            List<String> lines = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
                if (line.startsWith(t + " ")) {
                    if (!line.startsWith(t + " OK")) {
                        throw new IOException("IMAP: " + line);
                    }
                    return String.join("\n", lines);
                }
            }
            throw new IOException("IMAP connection closed: " + lines);
        }

        @Override
        public void close() throws IOException {
            try {
                command("LOGOUT");
            } catch (IOException ignored) {
                // closing anyway
            }
            socket.close();
        }
    }
}
