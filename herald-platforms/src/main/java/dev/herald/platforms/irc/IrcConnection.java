package dev.herald.platforms.irc;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One TCP (or TLS) connection to an IRC server, as lines: {@link #next} reads one line with a time limit, {@link #send}
 * writes one. TLS checks the server's certificate against the JDK's trust store and its host name (as HTTPS does).
 *
 * <p>Reading: lines end at LF (a CR before it is dropped). A line longer than {@link IrcLine#MAX_INBOUND_BYTES} is not
 * kept: its bytes are skipped up to the next LF and it comes back as {@link Bad}, so one huge line costs no memory and
 * the connection goes on. Only the connection loop reads. Writing is synchronized: sends from turns and the loop's own
 * replies (PONG) never interleave inside a line.
 */
final class IrcConnection implements AutoCloseable {
    /** What one read gave. */
    sealed interface Read permits Line, Bad, Quiet {
    }

    /** A parsed line. */
    record Line(IrcLine line) implements Read {
    }

    /** A line that is not IRC, or too long; {@code problem} says why (never the line's text). */
    record Bad(String problem) implements Read {
    }

    /** Nothing arrived within the time limit. */
    record Quiet() implements Read {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] line = new byte[IrcLine.MAX_INBOUND_BYTES];
    private int length;
    private long overlong; // bytes of a line over the limit seen so far; 0 when not skipping one

    private IrcConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream(), 16_384);
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code host:port}, over TLS when {@code tls}; both the connection and the handshake are bounded by {@code timeout}. */
    static IrcConnection open(String host, int port, boolean tls, Duration timeout) throws IOException {
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            plain.setTcpNoDelay(true);
            plain.setKeepAlive(true);
            if (!tls) {
                return new IrcConnection(plain);
            }
            SSLSocket s = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(plain, host, port, true);
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            s.startHandshake();
            return new IrcConnection(s);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /** The next line, waiting at most {@code timeout}; throws {@link EOFException} when the server closed the connection. */
    Read next(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        while (true) {
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                return new Quiet(); // what was read of the line so far stays for the next call
            }
            if (b < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (b == '\n') {
                if (overlong > 0) {
                    long size = overlong + length;
                    overlong = 0;
                    length = 0;
                    return new Bad("a line of " + size + " bytes is over the " + IrcLine.MAX_INBOUND_BYTES + "-byte limit; skipped");
                }
                int n = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
                length = 0;
                if (n == 0) {
                    continue; // an empty line: nothing (RFC 2812 says to ignore it)
                }
                try {
                    return new Line(IrcLine.parse(line, n));
                } catch (IrcLine.Malformed m) {
                    return new Bad(m.getMessage());
                }
            }
            if (length == line.length) {
                overlong += length;
                length = 0;
            }
            line[length++] = (byte) b;
        }
    }

    /** Writes one line (CR LF added); {@code text} comes from {@link IrcLine#format}. */
    void send(String text) throws IOException {
        byte[] bytes = (text + "\r\n").getBytes(StandardCharsets.UTF_8);
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing to do about it
        }
    }
}
