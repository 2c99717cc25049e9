package dev.herald.web.api;

import dev.herald.web.api.ReplyExchange.Signal;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Writes one request's response from its {@link ReplyExchange}: a {@code chat.completion} JSON, or a
 * stream of {@code chat.completion.chunk} server-sent events ending in {@code data: [DONE]}.
 *
 * <p>A stream commits its 200 headers at the first delta (or keep-alive), so an error that comes before
 * any text still gets its real status; after that, errors travel as an {@code {"error":...}} event, which
 * the OpenAI clients raise as an exception. Keep-alive comments every {@link #HEARTBEAT} also find a
 * client that went away while the turn is silent (a write to a closed connection fails); once the stream is
 * committed they come every {@link #LIVE_HEARTBEAT}.
 *
 * <p>A client that leaves a stateless turn stops it, as /stop does in a chat, and the harm of a late stop is in its
 * tools (a download, a shell command running on). So when a tool of such a turn starts ({@link Signal.ToolRunning}),
 * the keep-alive is written at once and then every {@link #LIVE_HEARTBEAT}: a client gone during the tool is found by
 * the first or second write, within about two seconds, and the turn's interrupt ends the tool. The price is the one of
 * any early commit: an error after the tool started is an error event under status 200. Before a tool runs (the model
 * thinking) the first keep-alive still waits {@link #HEARTBEAT}, so a model that fails at once keeps its real status.
 * A session turn's stream is not probed early: its client leaving does not stop the turn. A non-streamed answer of a
 * stateless turn is padded with spaces from {@link #HEARTBEAT} on ({@link PaddedJson}), not at a tool's start, since an
 * error after that commit could only be a JSON error object under status 200.
 */
final class CompletionWriter {
    static final Duration HEARTBEAT = Duration.ofSeconds(15);
    static final Duration LIVE_HEARTBEAT = Duration.ofSeconds(1);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    /** How a response ended, for the caller's clean-up and log line. */
    enum Ending { REPLIED, FAILED, TIMED_OUT, DISCONNECTED }

    /** What the caller waits with: when to give up, and what to tell the client then. */
    record Wait(long deadlineNanos, String timeoutMessage) {
    }

    private final String model;
    private final long heartbeatNanos;
    private final long liveHeartbeatNanos;

    CompletionWriter(String model, Duration heartbeat) {
        this.model = model;
        this.heartbeatNanos = heartbeat.toNanos();
        this.liveHeartbeatNanos = Math.min(heartbeatNanos, LIVE_HEARTBEAT.toNanos());
    }

    /** The advertised model id, for responses to requests that named none. */
    String model() {
        return model;
    }

    long heartbeatNanos() {
        return heartbeatNanos;
    }

    /** Waits for the exchange's signals and writes the response; blocking, on the request's virtual thread. */
    Ending respond(Context ctx, ReplyExchange exchange, ChatRequest request, Wait wait) {
        long created = System.currentTimeMillis() / 1000;
        String model = request.model() == null ? this.model : request.model();
        return request.stream()
                ? stream(ctx.res(), exchange, request.includeUsage(), created, wait, model)
                : whole(ctx, exchange, created, wait, model);
    }

    private Ending whole(Context ctx, ReplyExchange exchange, long created, Wait wait, String model) {
        PaddedJson body = new PaddedJson(ctx, exchange.stoppable());
        try {
            Signal end = awaitWhole(exchange, wait, body);
            if (end instanceof Signal.Done done) {
                body.reply(OpenAiWire.completion(exchange.completionId(), created, model, done.text(), done.finishReason(), done.usage(),
                        done.toolCalls()));
                return Ending.REPLIED;
            }
            body.fail(end instanceof Signal.Failed failed ? failed.error() : ApiError.timeout(wait.timeoutMessage()));
            return end instanceof Signal.Failed ? Ending.FAILED : Ending.TIMED_OUT;
        } catch (IOException e) {
            return Ending.DISCONNECTED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Ending.DISCONNECTED;
        }
    }

    /**
     * Waits for the end of a non-streamed answer: its {@code Done} or {@code Failed} signal, or null at the deadline
     * (deltas are dropped: the final text holds them). A padding {@code body} gets its first space at the first
     * keep-alive and then one every {@link #LIVE_HEARTBEAT}; a write that fails (the client left) throws.
     */
    Signal awaitWhole(ReplyExchange exchange, Wait wait, PaddedJson body) throws IOException, InterruptedException {
        long nextBeat = System.nanoTime() + heartbeatNanos;
        while (true) {
            long left = millisLeft(wait);
            if (left <= 0) {
                return null;
            }
            long untilBeat = Math.max(1, (nextBeat - System.nanoTime()) / 1_000_000);
            Signal signal = exchange.next(body.pads() ? Math.min(left, untilBeat) : left);
            if (signal == null) {
                if (body.pads() && System.nanoTime() >= nextBeat) {
                    body.pad();
                    nextBeat = System.nanoTime() + liveHeartbeatNanos;
                }
            } else if (signal instanceof Signal.Done || signal instanceof Signal.Failed) {
                return signal;
            }
        }
    }

    private Ending stream(HttpServletResponse res, ReplyExchange exchange, boolean includeUsage, long created, Wait wait, String model) {
        EventStream sse = new EventStream(res);
        StringBuilder streamed = new StringBuilder();
        long nextBeat = System.nanoTime() + heartbeatNanos;
        String id = exchange.completionId();
        try {
            while (true) {
                long left = millisLeft(wait);
                if (left <= 0) {
                    sse.fail(ApiError.timeout(wait.timeoutMessage()));
                    return Ending.TIMED_OUT;
                }
                long untilBeat = (nextBeat - System.nanoTime()) / 1_000_000;
                Signal signal = exchange.next(Math.min(left, untilBeat));
                if (signal == null) {
                    if (System.nanoTime() >= nextBeat) {
                        sse.keepAlive();
                        nextBeat = System.nanoTime() + liveHeartbeatNanos;
                    }
                } else if (signal instanceof Signal.Delta delta) {
                    sse.data(OpenAiWire.chunk(id, created, model, delta.text(), streamed.isEmpty(), null));
                    streamed.append(delta.text());
                    nextBeat = Math.min(nextBeat, System.nanoTime() + liveHeartbeatNanos);
                } else if (signal instanceof Signal.ToolRunning) {
                    nextBeat = probeNow(exchange, nextBeat);
                } else if (signal instanceof Signal.Done done) {
                    String rest = remainder(streamed, done.text());
                    if (!rest.isEmpty()) {
                        sse.data(OpenAiWire.chunk(id, created, model, rest, streamed.isEmpty(), null));
                    }
                    if (!done.toolCalls().isEmpty()) {
                        sse.data(OpenAiWire.toolCallsChunk(id, created, model, done.toolCalls(), streamed.isEmpty() && rest.isEmpty()));
                    }
                    sse.data(OpenAiWire.chunk(id, created, model, null, streamed.isEmpty() && rest.isEmpty() && done.toolCalls().isEmpty(),
                            done.finishReason()));
                    if (includeUsage) {
                        sse.data(OpenAiWire.usageChunk(id, created, model, done.usage() == null ? Usage.NONE : done.usage()));
                    }
                    sse.done();
                    return Ending.REPLIED;
                } else if (signal instanceof Signal.Failed failed) {
                    sse.fail(failed.error().seenUpTo(streamed));
                    return Ending.FAILED;
                }
            }
        } catch (IOException e) {
            return Ending.DISCONNECTED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Ending.DISCONNECTED;
        }
    }

    /**
     * When a tool of a turn that a leaving client stops starts, the next keep-alive is due at once (and then every
     * {@link #LIVE_HEARTBEAT}), so a client that leaves during the tool is noticed within a beat or two.
     */
    static long probeNow(ReplyExchange exchange, long nextBeat) {
        return exchange.stoppable() ? Math.min(nextBeat, System.nanoTime()) : nextBeat;
    }

    /**
     * What of the final text the client has not seen yet: all of it when nothing streamed, the tail when
     * the stream was its beginning, else nothing (the streamed text, such as narration between tool
     * calls, differs from the final text and the client already has it).
     */
    static String remainder(CharSequence streamed, String finalText) {
        String seen = streamed.toString();
        if (seen.isEmpty()) {
            return finalText;
        }
        return finalText.startsWith(seen) ? finalText.substring(seen.length()) : "";
    }

    /** Writes an OpenAI-shaped error with its status (and {@code Retry-After} when it has one). */
    static void writeError(Context ctx, ApiError error) {
        if (error.retryAfter() != null) {
            ctx.header("Retry-After", Long.toString(Math.max(1, error.retryAfter().toSeconds())));
        }
        json(ctx, error.status(), OpenAiWire.error(error));
    }

    static void json(Context ctx, int status, byte[] body) {
        ctx.status(status).contentType("application/json").result(body);
    }

    private static long millisLeft(Wait wait) {
        return (wait.deadlineNanos() - System.nanoTime()) / 1_000_000;
    }

    /** The raw event stream; headers are committed on the first write. */
    static final class EventStream {
        private final HttpServletResponse res;
        private OutputStream out;

        /** True once the status line and headers went out (an error can no longer change the status). */
        boolean committed() {
            return out != null;
        }

        EventStream(HttpServletResponse res) {
            this.res = res;
        }

        /** One {@code event:} line and its data (the Responses API names its events). */
        void event(String name, byte[] json) throws IOException {
            OutputStream o = open();
            o.write(("event: " + name + "\n").getBytes(StandardCharsets.US_ASCII));
            o.write("data: ".getBytes(StandardCharsets.US_ASCII));
            o.write(json);
            o.write("\n\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
        }

        void data(byte[] json) throws IOException {
            OutputStream o = open();
            o.write("data: ".getBytes(StandardCharsets.US_ASCII));
            o.write(json);
            o.write("\n\n".getBytes(StandardCharsets.US_ASCII));
            o.flush();
        }

        void keepAlive() throws IOException {
            OutputStream o = open();
            o.write(KEEP_ALIVE);
            o.flush();
        }

        void done() throws IOException {
            OutputStream o = open();
            o.write(DONE);
            o.flush();
        }

        /** Before any byte went out the error gets its own status; after, it is an error event. */
        void fail(ApiError error) throws IOException {
            if (out == null) {
                res.setStatus(error.status());
                if (error.retryAfter() != null) {
                    res.setHeader("Retry-After", Long.toString(Math.max(1, error.retryAfter().toSeconds())));
                }
                res.setContentType("application/json");
                res.getOutputStream().write(OpenAiWire.error(error));
                return;
            }
            data(OpenAiWire.error(error));
        }

        private OutputStream open() throws IOException {
            if (out == null) {
                res.setStatus(200);
                res.setContentType("text/event-stream");
                res.setCharacterEncoding("utf-8");
                res.setHeader("Cache-Control", "no-cache");
                res.setHeader("X-Accel-Buffering", "no");
                out = res.getOutputStream();
            }
            return out;
        }
    }
}
