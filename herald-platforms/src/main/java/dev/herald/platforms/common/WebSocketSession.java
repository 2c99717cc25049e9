package dev.herald.platforms.common;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One client WebSocket over the JDK's {@link WebSocket}, turned into a queue of whole text messages that
 * one reader thread takes in arrival order with {@link #next}. Text fragments are joined here; binary
 * messages are ignored (both Discord with {@code encoding=json} and Slack send text). Pings are answered
 * by the JDK itself; every frame, pings and pongs included, counts as "heard" for idle detection.
 *
 * <p>The JDK allows one outstanding send at a time, so sends are serialised by a lock and bounded by a
 * timeout. The end of the connection arrives in the queue as {@link Closed} or {@link Failed}, after any
 * text received before it.
 */
public final class WebSocketSession implements AutoCloseable {

    /** What the reader takes from the queue. */
    public sealed interface Incoming {
    }

    /** One whole text message. */
    public record Text(String text) implements Incoming {
    }

    /** The server closed the connection with {@code code}. */
    public record Closed(int code, String reason) implements Incoming {
    }

    /** The connection broke without a close frame. */
    public record Failed(Throwable error) implements Incoming {
    }

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);

    private final WebSocket socket;
    private final BlockingQueue<Incoming> inbox;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final Reader reader;

    private WebSocketSession(WebSocket socket, BlockingQueue<Incoming> inbox, Reader reader) {
        this.socket = socket;
        this.inbox = inbox;
        this.reader = reader;
    }

    /**
     * Connects to {@code uri}; fails with an {@link IOException} whose message names the host and the
     * HTTP status of a refused handshake (never the query string, which may carry a ticket).
     */
    public static WebSocketSession open(HttpClient http, URI uri, Duration timeout) throws IOException {
        BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
        Reader reader = new Reader(inbox);
        try {
            WebSocket ws = http.newWebSocketBuilder()
                    .connectTimeout(timeout)
                    .buildAsync(uri, reader)
                    .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            return new WebSocketSession(ws, inbox, reader);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof WebSocketHandshakeException h) {
                throw new IOException("the WebSocket handshake with " + where(uri) + " was refused (HTTP "
                        + h.getResponse().statusCode() + ")", cause);
            }
            throw new IOException("cannot open a WebSocket to " + where(uri) + " (" + cause.getClass().getSimpleName()
                    + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")", cause);
        } catch (TimeoutException e) {
            throw new IOException("no WebSocket connection to " + where(uri) + " within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + where(uri), e);
        }
    }

    /** The next message or end of connection, or null when nothing arrived within {@code wait}. */
    public Incoming next(Duration wait) throws InterruptedException {
        long ms = Math.max(0, wait.toMillis());
        return inbox.poll(ms, TimeUnit.MILLISECONDS);
    }

    /** Sends one text message; false when the connection can no longer send. */
    public boolean send(String text) {
        sendLock.lock();
        try {
            socket.sendText(text, true).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            sendLock.unlock();
        }
    }

    /** Sends a ping (the answer counts as heard); best-effort. */
    public void ping() {
        sendLock.lock();
        try {
            socket.sendPing(ByteBuffer.allocate(0)).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | IllegalStateException e) {
            // the reader will see the connection end
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sendLock.unlock();
        }
    }

    /** Milliseconds since anything (text, ping, pong) last arrived. */
    public long silentForMillis() {
        return (System.nanoTime() - reader.lastHeard) / 1_000_000;
    }

    /** Closes with {@code code} (waiting briefly for the close to go out), then drops the connection. */
    public void close(int code, String reason) {
        sendLock.lock();
        try {
            socket.sendClose(code, reason).get(2, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | IllegalStateException | IllegalArgumentException e) {
            // already closed or broken: abort below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sendLock.unlock();
            socket.abort();
        }
    }

    /** Drops the connection at once. Idempotent. */
    @Override
    public void close() {
        socket.abort();
    }

    /** Scheme, host and port: never the path or query, which may carry a ticket. */
    public static String where(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    }

    /** The JDK listener: joins fragments and queues whole messages; asks for the next frame at once. */
    private static final class Reader implements WebSocket.Listener {
        private final BlockingQueue<Incoming> inbox;
        private final StringBuilder partial = new StringBuilder();
        private volatile long lastHeard = System.nanoTime();

        Reader(BlockingQueue<Incoming> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            lastHeard = System.nanoTime();
            partial.append(data);
            if (last) {
                inbox.add(new Text(partial.toString()));
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            lastHeard = System.nanoTime();
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
            lastHeard = System.nanoTime();
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            lastHeard = System.nanoTime();
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            inbox.add(new Closed(statusCode, reason == null ? "" : reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            inbox.add(new Failed(error));
        }
    }
}
