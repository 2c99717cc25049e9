package dev.herald.platforms.feishu;

import java.io.ByteArrayOutputStream;
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
 * The long connection's WebSocket over the JDK's client, as a queue of whole binary messages (the frames are protocol
 * buffers, which the shared text-only session ignores). One reader takes them in order with {@link #next}; fragments
 * are joined here, up to {@value #MAX_MESSAGE_BYTES} bytes (a longer message ends the connection). Sends are
 * serialised (the JDK allows one outstanding send) and bounded by a timeout.
 */
final class FeishuSocket implements AutoCloseable {
    /** The largest message read: the platform splits events into parts far smaller than this. */
    static final int MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);

    /** What the reader takes: a message, or the end of the connection (code -1 when it broke without a close). */
    sealed interface Incoming {
    }

    record Binary(byte[] bytes) implements Incoming {
    }

    record Text(String text) implements Incoming {
    }

    record Ended(int code, String reason) implements Incoming {
    }

    private final WebSocket socket;
    private final BlockingQueue<Incoming> inbox;
    private final Listener listener;
    private final ReentrantLock sendLock = new ReentrantLock();

    private FeishuSocket(WebSocket socket, BlockingQueue<Incoming> inbox, Listener listener) {
        this.socket = socket;
        this.inbox = inbox;
        this.listener = listener;
    }

    /** Connects; a failure names the host and a refused handshake's status, never the query (it carries the device id). */
    static FeishuSocket open(HttpClient http, URI uri, Duration timeout) throws IOException {
        BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
        Listener listener = new Listener(inbox);
        String where = uri.getScheme() + "://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
        try {
            WebSocket ws = http.newWebSocketBuilder().connectTimeout(timeout).buildAsync(uri, listener)
                    .get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            return new FeishuSocket(ws, inbox, listener);
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof WebSocketHandshakeException h) {
                String msg = h.getResponse().headers().firstValue("handshake-msg").orElse("");
                throw new IOException("the long connection's handshake with " + where + " was refused (HTTP " + h.getResponse().statusCode()
                        + (msg.isEmpty() ? "" : ", " + FeishuEvents.clip(msg)) + ")", cause);
            }
            throw new IOException("cannot open the long connection to " + where + " (" + cause.getClass().getSimpleName() + ")", cause);
        } catch (TimeoutException e) {
            throw new IOException("no long connection to " + where + " within " + timeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + where, e);
        }
    }

    /** The next message or the end, or null when nothing came within {@code wait}. */
    Incoming next(Duration wait) throws InterruptedException {
        return inbox.poll(Math.max(0, wait.toMillis()), TimeUnit.MILLISECONDS);
    }

    /** Sends one binary message; false when the connection can no longer send. */
    boolean send(byte[] bytes) {
        sendLock.lock();
        try {
            socket.sendBinary(ByteBuffer.wrap(bytes), true).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
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

    /** Milliseconds since anything last arrived. */
    long silentForMillis() {
        return (System.nanoTime() - listener.lastHeard) / 1_000_000;
    }

    void close(String reason) {
        sendLock.lock();
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, reason).get(2, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | IllegalStateException | IllegalArgumentException e) {
            // already closed or broken: aborted below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            sendLock.unlock();
            socket.abort();
        }
    }

    @Override
    public void close() {
        socket.abort();
    }

    private static final class Listener implements WebSocket.Listener {
        private final BlockingQueue<Incoming> inbox;
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private final StringBuilder text = new StringBuilder();
        private volatile long lastHeard = System.nanoTime();

        Listener(BlockingQueue<Incoming> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            lastHeard = System.nanoTime();
            if (partial.size() + data.remaining() > MAX_MESSAGE_BYTES) {
                inbox.add(new Ended(-1, "a message over " + MAX_MESSAGE_BYTES + " bytes"));
                ws.abort();
                return null;
            }
            byte[] b = new byte[data.remaining()];
            data.get(b);
            partial.writeBytes(b);
            if (last) {
                inbox.add(new Binary(partial.toByteArray()));
                partial.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            lastHeard = System.nanoTime();
            if (text.length() + data.length() <= MAX_MESSAGE_BYTES) {
                text.append(data);
            }
            if (last) {
                inbox.add(new Text(text.toString()));
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
            lastHeard = System.nanoTime();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            lastHeard = System.nanoTime();
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
            inbox.add(new Ended(code, reason == null ? "" : reason));
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            inbox.add(new Ended(-1, error.getClass().getSimpleName()));
        }
    }
}
