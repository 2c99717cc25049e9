package dev.herald.platforms.ntfy;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.ConnectionLoop;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ntfy's JSON stream ({@code GET <base>/<topic>/json}: one JSON object a line, {@code event} open, keepalive, message or
 * poll_request), read on one virtual thread and opened again with {@link Backoff} whenever it ends: the server closed
 * it, the connection dropped, or nothing (not even the keepalive ntfy sends every 45 s) came for
 * {@link NtfySettings.Timing#idleTimeout()}.
 *
 * <p>Each line goes to the {@link Handler}, one at a time, in order. The stream is opened with {@code since=<id>}, the id
 * of the last message the handler was done with, so ntfy sends what came after it from its cache (12 hours on ntfy.sh)
 * and nothing twice; before the first message, with {@code since=<unix time>} when reading began. A handler that cannot take a
 * message now ({@link Outcome#AGAIN}: the store cannot write) has the stream closed and opened again after a pause,
 * from the same id, so the message comes again. A line over {@value #MAX_LINE} bytes is skipped with a log line.
 */
final class NtfyStream {
    private static final Logger log = LoggerFactory.getLogger(NtfyStream.class);
    static final int MAX_LINE = 1024 * 1024;

    enum Outcome {
        /** Taken (or nothing to take): the stream continues after it. */
        DONE,
        /** Not taken now: reopen the stream after a pause, from the last message done. */
        AGAIN,
        /** Herald is stopping: read no more. */
        STOP
    }

    interface Handler {
        /** One line of the stream (null: a line skipped as too long). */
        Outcome line(String line);

        void connection(ConnectionState state, String detail);
    }

    /** The stream refused the credentials (401/403): reading stops until Herald restarts. */
    static final String REFUSED = "refused";

    private final String url;
    private final NtfySettings.Timing timing;
    private final Optional<String> authorization;
    private final Handler handler;
    private final Supplier<String> since;
    private final ConnectionLoop loop;
    private volatile HttpURLConnection current;

    NtfyStream(URI base, String topic, NtfySettings.Timing timing, Optional<String> authorization, Handler handler, Supplier<String> since) {
        this.url = base.toString().replaceAll("/+$", "") + "/" + URLEncoder.encode(topic, StandardCharsets.UTF_8) + "/json";
        this.timing = timing;
        this.authorization = authorization;
        this.handler = handler;
        this.since = since;
        this.loop = new ConnectionLoop("ntfy-stream", "ntfy - the stream loop", log, message -> handler.connection(ConnectionState.STOPPED, message));
    }

    void start() {
        loop.start(this::run);
    }

    /** Stops reading; idempotent. */
    void close() {
        loop.stop(() -> {
            HttpURLConnection c = current;
            if (c != null) {
                c.disconnect();
            }
        });
    }

    private void run() {
        Backoff backoff = timing.backoff();
        while (!loop.stopping()) {
            String problem;
            try {
                problem = readOnce(backoff);
            } catch (SocketTimeoutException e) {
                problem = "nothing from the server for " + timing.idleTimeout().toSeconds() + " s (not even a keepalive)";
            } catch (IOException e) {
                problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (loop.stopping() || problem == null) {
                return;
            }
            if (problem.startsWith(REFUSED)) {
                log.error("ntfy - the stream was {}; not reading the topic until Herald restarts", problem);
                handler.connection(ConnectionState.STOPPED, "ntfy - the stream was " + problem);
                return;
            }
            java.time.Duration wait = backoff.next();
            log.warn("ntfy - stream: {}; connecting again in {} ms", problem, wait.toMillis());
            handler.connection(ConnectionState.BACKING_OFF, problem);
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    /** The stream's URL with {@code since} for {@code id} (null: only new messages). */
    String url(String id) {
        return id == null ? url : url + "?since=" + URLEncoder.encode(id, StandardCharsets.UTF_8);
    }

    private String readOnce(Backoff backoff) throws IOException {
        String last = since.get();
        HttpURLConnection c = (HttpURLConnection) URI.create(url(last != null && last.matches("[A-Za-z0-9]{1,64}") ? last : null)).toURL()
                .openConnection();
        current = c;
        try {
            c.setConnectTimeout((int) timing.connectTimeout().toMillis());
            c.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timing.idleTimeout().toMillis()));
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            authorization.ifPresent(a -> c.setRequestProperty("Authorization", a));
            int status = c.getResponseCode();
            if (status == 401 || status == 403) {
                return REFUSED + " (HTTP " + status + "): the server does not let these credentials read the topic; check platforms.ntfy.token "
                        + "(or username and password) and the topic's access control";
            }
            if (status != 200) {
                return "the server answered HTTP " + status;
            }
            if (loop.stopping()) {
                return null;
            }
            backoff.reset();
            handler.connection(ConnectionState.CONNECTED, "subscribed" + (last == null ? "" : " since " + last));
            try (InputStream in = new BufferedInputStream(c.getInputStream())) {
                return read(in);
            }
        } finally {
            current = null;
            c.disconnect();
        }
    }

    private String read(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(512);
        while (true) {
            int state = readLine(in, line);
            if (state < 0) {
                return loop.stopping() ? null : "the server closed the stream";
            }
            String text = state == 0 ? null : line.toString(StandardCharsets.UTF_8).strip();
            if (state == 0) {
                log.warn("ntfy - a line of the stream is over {} bytes; skipped", MAX_LINE);
            } else if (text.isEmpty()) {
                continue;
            }
            Outcome o = handler.line(text);
            if (o == Outcome.STOP) {
                return null;
            }
            if (o == Outcome.AGAIN) {
                return "a message could not be stored now; reading it again";
            }
        }
    }

    /** One line into {@code line} (without the LF): 1, or 0 when it was over the limit (and skipped), or -1 at the end. */
    private static int readLine(InputStream in, ByteArrayOutputStream line) throws IOException {
        line.reset();
        boolean over = false;
        while (true) {
            int b = in.read();
            if (b < 0) {
                return -1;
            }
            if (b == '\n') {
                return over ? 0 : 1;
            }
            if (!over) {
                if (line.size() >= MAX_LINE) {
                    over = true;
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        }
    }
}
