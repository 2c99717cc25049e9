package dev.herald.platforms.irc;


import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A person on the test IRC server: a raw socket client that registers with a nick, joins channels, sends PRIVMSG lines
 * (as text or as raw bytes) and records every line the server sends it, byte for byte. It answers PING so the server
 * keeps it.
 */
final class IrcUser implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(15);

    /** A line as received: its bytes without CR LF, and as text. */
    record Received(byte[] bytes, String text) {
        /** The bytes the line took on the wire, CR LF included. */
        int wireBytes() {
            return bytes.length + 2;
        }

        String command() {
            String[] parts = text.split(" ", 3);
            return parts.length > 1 && text.startsWith(":") ? parts[1] : parts[0];
        }

        String from() {
            return text.startsWith(":") ? text.substring(1, text.indexOf('!') > 0 ? text.indexOf('!') : text.indexOf(' ')) : null;
        }

        /** For {@code :src PRIVMSG target :text}: the target. */
        String target() {
            String[] parts = text.split(" ", 4);
            return parts.length > 2 ? parts[2] : null;
        }

        /** For {@code :src PRIVMSG target :text}: the text. */
        String message() {
            int i = text.indexOf(" :", text.indexOf(' ', text.indexOf(' ') + 1));
            return i < 0 ? null : text.substring(i + 2);
        }
    }

    final String nick;
    final List<Received> lines = new CopyOnWriteArrayList<>();
    private final Socket socket;
    private final OutputStream out;

    private IrcUser(String nick, Socket socket) throws IOException {
        this.nick = nick;
        this.socket = socket;
        this.out = socket.getOutputStream();
        Thread.ofVirtual().name("irc-user-" + nick).start(this::read);
    }

    /** Connects to the server on {@code port} as {@code nick} and waits for the welcome. */
    static IrcUser connect(int port, String nick) throws IOException {
        IrcUser u = new IrcUser(nick, new Socket("127.0.0.1", port));
        u.raw("NICK " + nick);
        u.raw("USER " + nick + " 0 * :" + nick);
        u.await(r -> r.command().equals("001"));
        return u;
    }

    IrcUser join(String channel) throws IOException {
        raw("JOIN " + channel);
        await(r -> r.command().equals("JOIN") && nick.equals(r.from()) && r.text().endsWith(channel));
        return this;
    }

    void say(String target, String text) throws IOException {
        raw("PRIVMSG " + target + " :" + text);
    }

    void raw(String line) throws IOException {
        rawBytes((line + "\r\n").getBytes(StandardCharsets.UTF_8));
    }

    void rawBytes(byte[] bytes) throws IOException {
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
    }

    /** Waits until a received line matches, and returns it. */
    Received await(Predicate<Received> match) {
        return org.awaitility.Awaitility.await().atMost(WAIT).until(() -> lines.stream().filter(match).findFirst().orElse(null), r -> r != null);
    }

    /** The texts of the PRIVMSGs {@code from} sent to {@code target} (a channel, or this user's nick). */
    List<String> messages(String from, String target) {
        return privmsgs(from, target).stream().map(Received::message).toList();
    }

    List<Received> privmsgs(String from, String target) {
        return lines.stream().filter(r -> r.command().equals("PRIVMSG") && from.equalsIgnoreCase(r.from())
                && target.equalsIgnoreCase(r.target())).toList();
    }

    List<Received> notices(String from) {
        return lines.stream().filter(r -> r.command().equals("NOTICE") && from.equalsIgnoreCase(r.from())).toList();
    }

    private void read() {
        try (InputStream in = socket.getInputStream()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                if (b != '\n') {
                    line.write(b);
                    continue;
                }
                byte[] bytes = line.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                byte[] exact = java.util.Arrays.copyOf(bytes, n);
                line.reset();
                String text = new String(exact, StandardCharsets.UTF_8);
                if (text.startsWith("PING")) {
                    raw("PONG" + text.substring(4));
                }
                lines.add(new Received(exact, text));
            }
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() {
        try {
            raw("QUIT :bye");
        } catch (IOException e) {
            // already gone
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }
}
