package dev.herald.web.api;

import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The body of one non-streamed answer (a {@code chat.completion} or a {@code response} object), padded with spaces
 * while a slow turn runs so that a client who leaves is noticed and its turn stopped.
 *
 * <p>Why spaces: Jetty (12.1) does not read a connection while its handler runs, so a client that closes or resets
 * the connection after sending its body gives no signal (checked on loopback: no request failure listener, no
 * {@code demand} callback, no change of the endpoint's open or shut state). The only probe that does not steal
 * pipelined bytes is a write: once the peer has gone, a write fails within a beat or two. So when the answer is still
 * not there at the first keep-alive ({@link CompletionWriter#HEARTBEAT}, 15 s), {@link #pad} commits status 200 with
 * {@code Content-Type: application/json} and writes one space, then the caller pads every
 * {@link CompletionWriter#LIVE_HEARTBEAT}; the JSON follows the spaces (JSON allows leading whitespace, and every
 * client parses it).
 *
 * <p>The trade-off: after the commit an error can no longer have its own status. It is still the OpenAI-shaped
 * {@code {"error": ...}} object, under status 200 and without {@code Retry-After}. Only requests whose turn a leaving
 * client stops (stateless ones) are padded; a session request keeps real statuses, since its turn runs on anyway.
 */
final class PaddedJson {
    private static final byte[] SPACE = {' '};

    private final Context ctx;
    private final boolean pads;
    private OutputStream out;

    /**
     * @param ctx  the request's context
     * @param pads whether {@link #pad} may commit the answer early (a stateless turn); false keeps real statuses
     */
    PaddedJson(Context ctx, boolean pads) {
        this.ctx = ctx;
        this.pads = pads;
    }

    /** Whether this answer is padded while it waits. */
    boolean pads() {
        return pads;
    }

    /** Writes one space, committing status 200 first; fails when the client has gone. */
    void pad() throws IOException {
        if (!pads) {
            return;
        }
        if (out == null) {
            HttpServletResponse res = ctx.res();
            res.setStatus(200);
            res.setContentType("application/json");
            res.setCharacterEncoding("utf-8");
            res.setHeader("Cache-Control", "no-cache");
            res.setHeader("X-Accel-Buffering", "no");
            out = res.getOutputStream();
        }
        out.write(SPACE);
        out.flush();
    }

    /** The answer, 200. */
    void reply(byte[] json) throws IOException {
        if (out == null) {
            CompletionWriter.json(ctx, 200, json);
            return;
        }
        write(json);
    }

    /** An error: its own status (and {@code Retry-After}) before the commit, the error object under 200 after it. */
    void fail(ApiError error) throws IOException {
        if (out == null) {
            CompletionWriter.writeError(ctx, error);
            return;
        }
        write(OpenAiWire.error(error));
    }

    private void write(byte[] json) throws IOException {
        out.write(json);
        out.flush();
    }
}
