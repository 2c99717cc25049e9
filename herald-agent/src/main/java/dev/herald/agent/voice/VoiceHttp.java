package dev.herald.agent.voice;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.retry.Backoff;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call to a speech endpoint (speech to text, text to speech), tried again as voice promises: a failed call (no
 * connection, a timeout, 429, 5xx) waits for {@link Backoff} (honouring {@code Retry-After}) and goes again, three
 * attempts in all; another 4xx is not tried again. Failures are {@link VoiceException}s in words (the endpoint's status
 * and message), never the key.
 */
final class VoiceHttp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VoiceHttp.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ATTEMPTS = 3;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
    private final Backoff backoff;
    private final String what;
    private final Duration timeout;

    VoiceHttp(String what, Duration timeout, Backoff backoff) {
        this.what = what;
        this.timeout = timeout;
        this.backoff = backoff;
    }

    /** The body of the first 200 answer to the request {@code request} builds (a fresh one per attempt). */
    byte[] call(Supplier<HttpRequest.Builder> request) throws IOException, InterruptedException {
        VoiceException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Duration retryAfter = null;
            try {
                HttpResponse<byte[]> r = http.send(request.get().timeout(timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() == 200) {
                    return r.body();
                }
                String why = "the " + what + " endpoint answered " + r.statusCode() + words(new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
                if (r.statusCode() != 429 && r.statusCode() < 500) {
                    throw new VoiceException(why);
                }
                last = new VoiceException(why);
                retryAfter = r.headers().firstValue("Retry-After").flatMap(VoiceHttp::seconds).orElse(null);
            } catch (VoiceException e) {
                throw e;
            } catch (IOException e) {
                last = new VoiceException("the " + what + " endpoint could not be reached (" + (e instanceof java.net.http.HttpTimeoutException
                        ? "no answer within " + timeout.toSeconds() + " s" : e.getClass().getSimpleName()) + ")");
            }
            if (attempt < ATTEMPTS) {
                Optional<Duration> wait = backoff.wait(attempt, retryAfter);
                if (wait.isEmpty()) {
                    break;
                }
                log.info("voice - {} attempt {} failed ({}); trying again in {} ms", what, attempt, last.getMessage(), wait.get().toMillis());
                Thread.sleep(wait.get().toMillis());
            }
        }
        throw last;
    }

    private static Optional<Duration> seconds(String value) {
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value.strip()))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String words(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String b = body.replaceAll("[\\r\\n\\t]+", " ").strip();
        try {
            JsonNode msg = JSON.readTree(body).path("error").path("message");
            if (msg.isTextual()) {
                b = msg.asText();
            }
        } catch (IOException | RuntimeException ignored) {
            // not JSON: the text as it came
        }
        return ": " + (b.length() > 200 ? b.substring(0, 200) + "…" : b);
    }

    @Override
    public void close() {
        http.close();
    }

    /** Why a voice call failed, in words for the model or the log (no secrets, no internals). */
    static final class VoiceException extends IOException {
        VoiceException(String message) {
            super(message);
        }
    }
}
