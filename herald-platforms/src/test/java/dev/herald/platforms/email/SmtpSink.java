package dev.herald.platforms.email;

import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An SMTP server on loopback that takes every mail and records it: just enough of RFC 5321 for a client (EHLO/HELO,
 * MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT), one connection at a time.
 */
final class SmtpSink implements AutoCloseable {
    /** One mail as received: envelope and the parsed message. */
    record Mail(String from, List<String> to, byte[] raw, MimeMessage message) {
        /** True when this mail answers the mail {@code messageId} (its In-Reply-To). */
        boolean answers(String messageId) {
            return ("<" + messageId + ">").equals(header("In-Reply-To"));
        }

        String header(String name) {
            try {
                return message.getHeader(name, ",");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    final List<Mail> mails = new CopyOnWriteArrayList<>();
    private final ServerSocket server;
    private final Thread thread;

    SmtpSink() throws IOException {
        server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        thread = Thread.ofPlatform().daemon().name("smtp-sink").start(this::serve);
    }

    int port() {
        return server.getLocalPort();
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                session(s);
            } catch (SocketException closed) {
                return;
            } catch (IOException e) {
                // one broken session; take the next
            }
        }
    }

    private void session(Socket s) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        OutputStream out = s.getOutputStream();
        say(out, "220 sink.test ESMTP");
        String from = null;
        List<String> to = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null) {
            String cmd = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line.toUpperCase();
            switch (cmd) {
                case "EHLO" -> say(out, "250-sink.test\r\n250-8BITMIME\r\n250 SIZE 52428800");
                case "HELO" -> say(out, "250 sink.test");
                case "MAIL" -> {
                    from = line.substring(line.indexOf(':') + 1).strip();
                    to = new ArrayList<>();
                    say(out, "250 OK");
                }
                case "RCPT" -> {
                    to.add(line.substring(line.indexOf(':') + 1).strip());
                    say(out, "250 OK");
                }
                case "DATA" -> {
                    say(out, "354 go ahead");
                    ByteArrayOutputStream data = new ByteArrayOutputStream();
                    String l;
                    while ((l = in.readLine()) != null && !l.equals(".")) {
                        data.writeBytes((l.startsWith("..") ? l.substring(1) : l).getBytes(StandardCharsets.ISO_8859_1));
                        data.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    }
                    byte[] raw = data.toByteArray();
                    try {
                        mails.add(new Mail(from, List.copyOf(to), raw, new MimeMessage(Session.getInstance(new Properties()),
                                new ByteArrayInputStream(raw))));
                    } catch (Exception e) {
                        throw new IOException(e);
                    }
                    say(out, "250 OK queued");
                }
                case "RSET", "NOOP" -> say(out, "250 OK");
                case "QUIT" -> {
                    say(out, "221 bye");
                    return;
                }
                default -> say(out, "502 not implemented");
            }
        }
    }

    private static void say(OutputStream out, String reply) throws IOException {
        out.write((reply + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** The mails sent to {@code address}, in order. */
    List<Mail> to(String address) {
        return mails.stream().filter(m -> m.to().stream().anyMatch(t -> t.contains(address))).toList();
    }

    @Override
    public void close() throws IOException {
        server.close();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
