package dev.herald.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A client of Herald's API as the API asks clients to behave: each message goes to a durable session
 * ({@code X-Herald-Session-Id}) with its own {@code X-Herald-Request-Id}, and is sent again with the same id after a 503,
 * a 500 or 504, a timeout ({@link #ATTEMPT_TIMEOUT} for the whole response), a lost connection or a stream that broke
 * off before its end, to whichever node {@code endpoint} names then. It pauses {@value #PAUSE_MS} ms between attempts rather than the {@code Retry-After} Herald
 * sends (10 s while the store cannot write), so the soak measures when Herald answers again, not the client's patience.
 */
final class SoakClient implements AutoCloseable {
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(30);
    static final Duration GIVE_UP = Duration.ofSeconds(150);
    private static final long PAUSE_MS = 250;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "soak-client-timer");
        t.setDaemon(true);
        return t;
    });

    /** How a message ended for its client. */
    enum Kind {
        /** A complete answer: HTTP 200 with {@code finish_reason: stop} (streamed: and no error event). */
        ANSWERED,
        /** The answer was cut off and the client was told: 502 {@code answer_cut_off}, or a stream's error event with that code. */
        CUT_OFF,
        /** 409: the first attempt was cut off by a restart and the session's next turn continued it. */
        CONTINUED,
        /** Anything else that ended it (another error, or no answer within {@link #GIVE_UP}). */
        FAILED
    }

    /** What one message came to: its kind, the text the client read (the answer, or the error), and the number of requests. */
    record Outcome(Kind kind, String text, int attempts, long endedAt) {
    }

    /** Requests over a scenario: all, those answered 503, and those that failed otherwise (each then sent again). */
    static final class Counters {
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger unavailable = new AtomicInteger();
        final AtomicInteger broken = new AtomicInteger();

        /** Requests that were answered 503 or failed otherwise, to be sent again. */
        int failures() {
            return unavailable.get() + broken.get();
        }

        String summary() {
            return requests.get() + " requests (" + unavailable.get() + " answered 503, " + broken.get()
                    + " failed otherwise: 500, 504, a timeout or a lost connection; each sent again)";
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    private final Counters counters;

    SoakClient(Counters counters) {
        this.counters = counters;
    }

    /**
     * Sends {@code text} to {@code session} (its request id is the text) until it ends; {@code endpoint} gives the node's
     * API root for each attempt, or null while no node should be used.
     */
    Outcome send(Supplier<URI> endpoint, String session, String text, boolean stream) throws InterruptedException {
        long deadline = System.nanoTime() + GIVE_UP.toNanos();
        String last = "never sent";
        int attempts = 0;
        while (System.nanoTime() < deadline) {
            URI root = endpoint.get();
            if (root == null) {
                Thread.sleep(20);
                continue;
            }
            attempts++;
            counters.requests.incrementAndGet();
            Attempt a = attempt(root, session, text, stream);
            if (a.outcome != null) {
                return new Outcome(a.outcome, a.text, attempts, System.nanoTime());
            }
            last = a.text;
            (a.text.startsWith("HTTP 503") ? counters.unavailable : counters.broken).incrementAndGet();
            Thread.sleep(PAUSE_MS);
        }
        return new Outcome(Kind.FAILED, "no answer within " + GIVE_UP.toSeconds() + " s; last: " + last, attempts, System.nanoTime());
    }

    /** Ends the client's connections; a request still running fails. */
    @Override
    public void close() {
        http.shutdownNow();
    }

    /** One request: an outcome, or (outcome null) the reason to send it again. */
    private record Attempt(Kind outcome, String text) {
    }

    private Attempt attempt(URI root, String session, String text, boolean stream) {
        String body = "{\"model\":\"herald\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]" + (stream ? ",\"stream\":true" : "") + "}";
        HttpRequest req = HttpRequest.newBuilder(root.resolve("/v1/chat/completions")).timeout(ATTEMPT_TIMEOUT)
                .header("Content-Type", "application/json").header("X-Herald-Session-Id", session).header("X-Herald-Request-Id", text)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long deadline = System.nanoTime() + ATTEMPT_TIMEOUT.toNanos();
        AtomicBoolean expired = new AtomicBoolean();
        try {
            HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            // the request's timeout ends at the response headers; a body (a stream, or padding) is bounded here
            ScheduledFuture<?> bound = TIMERS.schedule(() -> {
                expired.set(true);
                try {
                    r.body().close();
                } catch (IOException ignored) {
                    // the read fails either way
                }
            }, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                if (r.statusCode() != 200) {
                    return failed(r.statusCode(), in);
                }
                return stream ? streamed(in) : whole(in);
            } finally {
                bound.cancel(false);
            }
        } catch (HttpTimeoutException e) {
            return new Attempt(null, "timed out after " + ATTEMPT_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            return new Attempt(null, expired.get() ? "timed out after " + ATTEMPT_TIMEOUT.toSeconds() + " s"
                    : e.getClass().getSimpleName() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Attempt(Kind.FAILED, "interrupted");
        }
    }

    private static Attempt whole(BufferedReader in) throws IOException {
        JsonNode choice = JSON.readTree(in).path("choices").path(0);
        String content = choice.path("message").path("content").asText("");
        return "stop".equals(choice.path("finish_reason").asText())
                ? new Attempt(Kind.ANSWERED, content)
                : new Attempt(Kind.FAILED, "HTTP 200 with finish_reason " + choice.path("finish_reason") + ": " + content);
    }

    /** Reads a chat completion stream to its end: the deltas, a finish reason, {@code [DONE]} or an error event. */
    private static Attempt streamed(BufferedReader in) throws IOException {
        StringBuilder content = new StringBuilder();
        boolean stopped = false;
        boolean done = false;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (!line.startsWith("data: ")) {
                continue;
            }
            if (line.equals("data: [DONE]")) {
                done = true;
                continue;
            }
            JsonNode event = JSON.readTree(line.substring(6));
            JsonNode error = event.get("error");
            if (error != null) {
                String message = content + error.path("message").asText();
                return "answer_cut_off".equals(error.path("code").asText())
                        ? new Attempt(Kind.CUT_OFF, message)
                        : new Attempt(Kind.FAILED, "stream error " + error.path("code").asText() + ": " + message);
            }
            JsonNode choice = event.path("choices").path(0);
            content.append(choice.path("delta").path("content").asText(""));
            stopped |= "stop".equals(choice.path("finish_reason").asText());
        }
        if (stopped || done) {
            return new Attempt(Kind.ANSWERED, content.toString());
        }
        return new Attempt(null, "the stream broke off after " + content.length() + " characters");
    }

    private static Attempt failed(int status, BufferedReader in) throws IOException {
        StringBuilder sb = new StringBuilder();
        in.lines().forEach(sb::append);
        String body = sb.toString();
        JsonNode error;
        try {
            error = JSON.readTree(body).path("error");
        } catch (IOException notJson) {
            error = JSON.missingNode();
        }
        String code = error.path("code").asText("");
        String message = error.path("message").asText(body);
        if (status == 409 && message.contains("cut off by a restart")) {
            return new Attempt(Kind.CONTINUED, message);
        }
        if (status == 502 && code.equals("answer_cut_off")) {
            return new Attempt(Kind.CUT_OFF, message);
        }
        if (status == 500 || status == 503 || status == 504) {
            return new Attempt(null, "HTTP " + status + " " + code + ": " + message);
        }
        return new Attempt(Kind.FAILED, "HTTP " + status + " " + code + ": " + message);
    }
}
