package dev.herald.platforms.signal;

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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * signal-cli's server-sent event stream ({@code GET /api/v1/events}), read on one virtual thread and opened again with
 * {@link Backoff} whenever it ends: the daemon restarted, the connection dropped, or nothing (not even the daemon's
 * keep-alive comment) came for {@link SignalSettings.Timing#idleTimeout()}.
 *
 * <p>Each event ({@code id:}, {@code event:}, {@code data:} lines, then a blank line; lines starting with {@code :} are
 * comments) goes to the {@link Handler}, one at a time, in order. The stream is opened with {@code Last-Event-ID} set
 * to the id of the last event the handler was done with: a signal-cli that keeps recent events (the last 1,000, in
 * memory) sends the ones after it first, and one that does not know the id (it restarted) sends every event it kept.
 * A handler that cannot take an event now ({@link Outcome#AGAIN}: the store cannot write) has the stream closed and
 * opened again after a pause, so the event comes again. A line or an event over {@value #MAX_EVENT} bytes is skipped
 * with a log line; broken UTF-8 reads as U+FFFD.
 */
final class SignalEvents {
    private static final Logger log = LoggerFactory.getLogger(SignalEvents.class);
    static final int MAX_EVENT = 4 * 1024 * 1024;

    /** What became of one event. */
    enum Outcome {
        /** Taken (or nothing to take): the stream continues after it. */
        DONE,
        /** Not taken now: reopen the stream after a pause, from the last event done. */
        AGAIN,
        /** Herald is stopping: read no more. */
        STOP
    }

    /** Who gets the stream's events and its connection changes. */
    interface Handler {
        /** Event {@code id} (null when the daemon gives none) of {@code type}; {@code data} is null for an event skipped as too large. */
        Outcome event(String id, String type, String data);

        void connection(ConnectionState state, String detail);
    }

    private final URI url;
    private final SignalSettings.Timing timing;
    private final Handler handler;
    private final Supplier<String> lastEventId;
    private final ConnectionLoop loop;
    private volatile HttpURLConnection current;

    /**
     * @param base        the daemon's base URL
     * @param account     the bot's number, sent as {@code ?account=} (a multi-account daemon needs it; a single-account one
     *                    ignores it)
     * @param lastEventId the id of the last event the handler was done with, or null
     */
    SignalEvents(URI base, String account, SignalSettings.Timing timing, Handler handler, Supplier<String> lastEventId) {
        this.url = URI.create(base + "/api/v1/events?account=" + URLEncoder.encode(account, StandardCharsets.UTF_8));
        this.timing = timing;
        this.handler = handler;
        this.lastEventId = lastEventId;
        this.loop = new ConnectionLoop("signal-events", "signal - the event stream loop", log,
                message -> handler.connection(ConnectionState.STOPPED, message));
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
                problem = "nothing from the daemon for " + timing.idleTimeout().toSeconds() + " s (not even a keep-alive)";
            } catch (IOException e) {
                problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (loop.stopping() || problem == null) {
                return;
            }
            java.time.Duration wait = backoff.next();
            log.warn("signal - event stream: {}; connecting again in {} ms", problem, wait.toMillis());
            handler.connection(ConnectionState.BACKING_OFF, problem);
            if (!loop.pause(wait)) {
                return;
            }
        }
    }

    /** One connection: the problem that ended it, or null when reading should end for good. */
    private String readOnce(Backoff backoff) throws IOException {
        HttpURLConnection c = (HttpURLConnection) url.toURL().openConnection();
        current = c;
        try {
            c.setConnectTimeout((int) timing.connectTimeout().toMillis());
            c.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timing.idleTimeout().toMillis()));
            c.setRequestProperty("Accept", "text/event-stream");
            c.setUseCaches(false);
            String last = lastEventId.get();
            if (last != null && !last.isBlank() && last.length() <= 200 && last.chars().noneMatch(ch -> ch < 0x20 || ch > 0x7e)) {
                c.setRequestProperty("Last-Event-ID", last);
            }
            int status = c.getResponseCode();
            if (status != 200) {
                return "the daemon answered HTTP " + status + (status == 400 ? " (it serves no account " + "named by platforms.signal.account)"
                        : status == 404 ? " (is it signal-cli daemon --http?)" : "");
            }
            if (loop.stopping()) {
                return null;
            }
            backoff.reset();
            handler.connection(ConnectionState.CONNECTED, "event stream open");
            try (InputStream in = new BufferedInputStream(c.getInputStream())) {
                return read(in);
            }
        } finally {
            current = null;
            c.disconnect();
        }
    }

    /** Reads events until the stream ends: why it ended, or null when told to stop. */
    private String read(InputStream in) throws IOException {
        String id = null;
        String type = null;
        StringBuilder data = null;
        boolean oversize = false;
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        while (true) {
            int lineState = readLine(in, line);
            if (lineState < 0) {
                return loop.stopping() ? null : "the daemon closed the event stream";
            }
            if (lineState == 0) {
                log.warn("signal - a line of the event stream is over {} bytes; its event is skipped", MAX_EVENT);
                oversize = true;
                continue;
            }
            String text = line.toString(StandardCharsets.UTF_8);
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
            if (text.isEmpty()) {
                if (data != null || oversize) {
                    Outcome o = handler.event(id, type == null ? "message" : type, oversize ? null : data.toString());
                    if (o == Outcome.STOP) {
                        return null;
                    }
                    if (o == Outcome.AGAIN) {
                        return "an event could not be stored now; reading it again";
                    }
                }
                id = null;
                type = null;
                data = null;
                oversize = false;
                continue;
            }
            if (text.startsWith(":")) {
                continue; // a comment: signal-cli's keep-alive
            }
            int colon = text.indexOf(':');
            String field = colon < 0 ? text : text.substring(0, colon);
            String value = colon < 0 ? "" : text.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "id" -> id = value.indexOf('\0') >= 0 ? id : value;
                case "event" -> type = value;
                case "data" -> {
                    if (data == null) {
                        data = new StringBuilder(value);
                    } else if (data.length() + value.length() + 1 > MAX_EVENT) {
                        log.warn("signal - an event of the event stream is over {} bytes; skipped", MAX_EVENT);
                        oversize = true;
                    } else {
                        data.append('\n').append(value);
                    }
                }
                default -> {
                    // retry and unknown fields: nothing Herald uses
                }
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
                if (line.size() >= MAX_EVENT) {
                    over = true;
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        }
    }
}
