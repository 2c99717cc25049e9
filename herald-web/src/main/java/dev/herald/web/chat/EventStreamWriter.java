package dev.herald.web.chat;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes one server-sent event stream from a {@link ChatStreams.Subscriber} until the subscriber ends or
 * the client goes away (noticed on the next write: a frame or the heartbeat comment).
 */
final class EventStreamWriter {
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_OF_EVENT = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEARTBEAT = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final HttpServletResponse res;
    private final long heartbeatMillis;

    EventStreamWriter(HttpServletResponse res, long heartbeatMillis) {
        this.res = res;
        this.heartbeatMillis = heartbeatMillis;
    }

    /** Returns when the stream ends; never throws for a client that left. */
    void pump(ChatStreams.Subscriber subscriber) {
        res.setStatus(200);
        res.setContentType("text/event-stream");
        res.setCharacterEncoding("utf-8");
        res.setHeader("Cache-Control", "no-store");
        res.setHeader("X-Accel-Buffering", "no");
        try {
            OutputStream out = res.getOutputStream();
            while (true) {
                byte[] frame = subscriber.next(heartbeatMillis);
                if (frame == ChatStreams.END) {
                    return;
                }
                if (frame == null) {
                    out.write(HEARTBEAT);
                } else {
                    out.write(DATA);
                    out.write(frame);
                    out.write(END_OF_EVENT);
                }
                out.flush();
            }
        } catch (IOException e) {
            // the client went away; its page reconnects and fetches what it missed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
