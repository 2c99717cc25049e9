package dev.herald.platforms.xmpp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on loopback between the adapter and the real Prosody that can slip bytes of its own into what the
 * server sends: a server that goes bad (a DOCTYPE, broken UTF-8, garbage) without a fake server. Counts connections.
 */
final class InjectingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final AtomicInteger connections = new AtomicInteger();
    private volatile Socket client;
    private volatile boolean closed;

    InjectingProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /** Writes {@code bytes} to the adapter on the current connection, as if the server sent them. */
    void inject(byte[] bytes) throws IOException {
        Socket c = client;
        if (c == null) {
            throw new IOException("no connection to inject into");
        }
        OutputStream out = c.getOutputStream();
        synchronized (c) {
            out.write(bytes);
            out.flush();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket c = listener.accept();
                Socket s = new Socket(InetAddress.getLoopbackAddress(), target);
                connections.incrementAndGet();
                client = c;
                Thread.ofVirtual().start(() -> pump(c, s, null));
                Thread.ofVirtual().start(() -> pump(s, c, c));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to, Object lock) {
        byte[] buf = new byte[8192];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buf)) > 0) {
                if (lock != null) {
                    synchronized (lock) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } else {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // closing
            }
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        Socket c = client;
        if (c != null) {
            c.close();
        }
    }
}
