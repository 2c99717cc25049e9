package dev.herald.platforms.irc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What ngircd cannot show, against a scripted server that speaks the IRCv3 wire format on loopback: SASL PLAIN during
 * capability negotiation, accounts as the identity (an account tag, extended-join), a refused login or server password
 * failing start with the key to fix and never the secret, and server lines that are not IRC (over-long, a NUL, no
 * command, broken UTF-8) skipped while the connection goes on.
 */
class IrcAccountsTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
    private final Sink sink = new Sink();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void saslPlain_logsInBeforeRegistering_andTheSendersAccountIsTheIdentity() throws Exception {
        try (Scripted server = new Scripted()) {
            IrcAdapter adapter = adapter(server, "s3cret-pass", new IrcSettings.Sasl("herald", dev.herald.core.config.Secret.of("s3cret-pass")));
            Thread starting = Thread.ofVirtual().start(() -> start(adapter));
            Socket c = server.accept();
            assertThat(server.read()).isEqualTo("CAP LS 302");
            assertThat(server.read()).isEqualTo("PASS s3cret-pass");
            assertThat(server.read()).startsWith("NICK herald");
            assertThat(server.read()).startsWith("USER ");
            server.write(":srv CAP * LS * :multi-prefix sasl=PLAIN,EXTERNAL");
            server.write(":srv CAP * LS :account-tag extended-join account-notify");
            assertThat(server.read()).isEqualTo("CAP REQ :sasl account-tag extended-join account-notify");
            server.write(":srv CAP herald ACK :sasl account-tag extended-join account-notify");
            assertThat(server.read()).isEqualTo("AUTHENTICATE PLAIN");
            server.write("AUTHENTICATE +");
            String auth = server.read();
            assertThat(new String(Base64.getDecoder().decode(auth.substring("AUTHENTICATE ".length())), StandardCharsets.UTF_8))
                    .isEqualTo("herald\0herald\0s3cret-pass");
            server.write(":srv 900 herald herald!h@h herald :You are now logged in as herald");
            server.write(":srv 903 herald :SASL authentication successful");
            assertThat(server.read()).isEqualTo("CAP END");
            server.write(":srv 001 herald :Welcome herald!~h@127.0.0.1");
            starting.join(WAIT);
            assertThat(sink.states).contains(ConnectionState.CONNECTED);

            server.write("@account=alice :al!u@h PRIVMSG herald :from the account");
            server.write(":bob!u@h JOIN #x bobacct :Bob");
            server.write(":bob!u@h PRIVMSG herald :known through extended-join");
            server.write(":mallory!u@h PRIVMSG herald :not logged in");
            await().atMost(WAIT).until(() -> sink.events.size() == 2);
            assertThat(sink.events).extracting(e -> e.source().userId()).containsExactly("alice", "bobacct");
            assertThat(sink.events).extracting(e -> e.source().chatId()).containsExactly("al", "bob");
            assertThat(server.readUntil(l -> l.startsWith("NOTICE mallory "))).contains("logged in");
            assertThat(c.isClosed()).isFalse();
        }
    }

    @Test
    void aRefusedSaslLogin_failsStart_namingTheKey_withoutThePassword() throws Exception {
        try (Scripted server = new Scripted()) {
            IrcAdapter adapter = adapter(server, null, new IrcSettings.Sasl("herald", dev.herald.core.config.Secret.of("wrong-secret")));
            Thread.ofVirtual().start(() -> {
                try {
                    server.accept();
                    server.readUntil(l -> l.startsWith("USER"));
                    server.write(":srv CAP * LS :sasl");
                    server.readUntil(l -> l.startsWith("CAP REQ"));
                    server.write(":srv CAP * ACK :sasl");
                    server.readUntil(l -> l.equals("AUTHENTICATE PLAIN"));
                    server.write("AUTHENTICATE +");
                    server.read();
                    server.write(":srv 904 herald :SASL authentication failed");
                } catch (Exception e) {
                    // the assertion below says what went wrong
                }
            });
            assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("platforms.irc.sasl").hasMessageNotContaining("wrong-secret");
        }
    }

    @Test
    void aRefusedServerPassword_failsStart_namingTheKey_withoutThePassword() throws Exception {
        try (Scripted server = new Scripted()) {
            IrcAdapter adapter = adapter(server, "bad-pass", null);
            Thread.ofVirtual().start(() -> {
                try {
                    server.accept();
                    server.readUntil(l -> l.startsWith("USER"));
                    server.write(":srv 464 * :Password incorrect");
                } catch (Exception e) {
                    // the assertion below says what went wrong
                }
            });
            assertThatThrownBy(() -> adapter.start(sink)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("platforms.irc.password").hasMessageNotContaining("bad-pass");
        }
    }

    @Test
    void serverLinesThatAreNotIrc_areSkipped_andTheConnectionGoesOn() throws Exception {
        try (Scripted server = new Scripted()) {
            IrcAdapter adapter = adapter(server, null, null);
            Thread starting = Thread.ofVirtual().start(() -> start(adapter));
            server.accept();
            server.readUntil(l -> l.startsWith("USER"));
            server.write(":srv 001 herald :Welcome");
            starting.join(WAIT);
            server.writeBytes(("PRIVMSG herald :" + "x".repeat(20_000) + "\r\n").getBytes(StandardCharsets.UTF_8));
            server.writeBytes(":a!b@c PRIVMSG herald :nul\0inside\r\n".getBytes(StandardCharsets.UTF_8));
            server.writeBytes(":only-a-source\r\n@tags-only\r\n\r\n:a!b@c 12 x\r\n".getBytes(StandardCharsets.UTF_8));
            server.writeBytes(":al!u@h PRIVMSG herald :caf\u00e9 in latin-1\r\n".getBytes(StandardCharsets.ISO_8859_1));
            server.write(":al!u@h PRIVMSG herald");
            server.write("PING :still-there");
            assertThat(server.readUntil(l -> l.startsWith("PONG"))).isEqualTo("PONG still-there");
            server.write(":al!u@h PRIVMSG herald :a good one");
            await().atMost(WAIT).until(() -> sink.events.size() == 1);
            assertThat(sink.events.getFirst().text()).isEqualTo("a good one");
        }
    }

    private IrcAdapter adapter(Scripted server, String password, IrcSettings.Sasl sasl) {
        IrcSettings s = IrcSettings.plain("127.0.0.1", server.port(), "herald", List.of());
        if (password != null || sasl != null) {
            s = s.withPassword(password, sasl);
        }
        IrcAdapter a = new IrcAdapter(s, IrcServerTests.TIMING.withReconnect(Duration.ofSeconds(5), Duration.ofSeconds(5)), Clock.systemUTC());
        open.add(a);
        return a;
    }

    private void start(IrcAdapter a) {
        try {
            a.start(sink);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The gateway's side: takes every message, records connection states. */
    static final class Sink implements InboundSink {
        final List<MessageEvent> events = new CopyOnWriteArrayList<>();
        final List<ConnectionState> states = new CopyOnWriteArrayList<>();

        @Override
        public Admission accept(MessageEvent event) {
            events.add(event);
            return Admission.ACCEPTED;
        }

        @Override
        public void connectionChanged(Platform platform, ConnectionState state, String detail) {
            states.add(state);
        }
    }

    /** A loopback server the test scripts line by line. */
    static final class Scripted implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private volatile Socket socket;
        private volatile OutputStream out;

        Scripted() throws IOException {
            listener.setSoTimeout(10_000);
        }

        int port() {
            return listener.getLocalPort();
        }

        Socket accept() throws IOException {
            socket = listener.accept();
            out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            Thread.ofVirtual().start(() -> {
                try {
                    for (String l; (l = in.readLine()) != null; ) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            return socket;
        }

        String read() throws InterruptedException {
            String l = lines.poll(10, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("the client sent nothing within 10 s");
            }
            return l;
        }

        String readUntil(java.util.function.Predicate<String> match) throws InterruptedException {
            while (true) {
                String l = read();
                if (match.test(l)) {
                    return l;
                }
            }
        }

        void write(String line) throws IOException {
            writeBytes((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        }

        void writeBytes(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        @Override
        public void close() throws IOException {
            if (socket != null) {
                socket.close();
            }
            listener.close();
        }
    }
}
