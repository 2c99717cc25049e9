package dev.herald.agent.voice;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.retry.Backoff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Speech to text through an OpenAI-compatible {@code POST <base_url>/audio/transcriptions} (multipart: {@code file},
 * {@code model}, optional {@code language}, {@code response_format=json}). Audio goes to the configured endpoint only.
 * A failed call (no connection, a timeout, 429, 5xx) is tried again after a {@link Backoff} wait, three attempts in all,
 * honouring {@code Retry-After}; a 4xx other than 429 is not. Errors name the endpoint's status and words, never the key.
 */
public final class Transcriber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Transcriber.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ATTEMPTS = 3;

    /** Why a transcription failed, in words for the model to pass on (no secrets, no internals). */
    public static final class TranscriptionException extends IOException {
        public TranscriptionException(String message) {
            super(message);
        }
    }

    private final VoiceSettings.Transcription settings;
    private final HttpClient http;
    private final Backoff backoff;

    public Transcriber(VoiceSettings.Transcription settings) {
        this(settings, Backoff.jittered(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(30)));
    }

    public Transcriber(VoiceSettings.Transcription settings, Backoff backoff) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("voice.transcription.base_url is not set");
        }
        this.settings = settings;
        this.backoff = backoff;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** What was said in {@code audio} (a file named {@code fileName} of type {@code mimeType}). */
    public String transcribe(byte[] audio, String fileName, String mimeType) throws IOException, InterruptedException {
        String boundary = "herald-" + UUID.randomUUID();
        byte[] body = body(boundary, audio, fileName, mimeType);
        URI uri = URI.create(settings.baseUrl() + "/audio/transcriptions");
        IOException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(settings.timeout())
                    .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            settings.apiKey().reveal().ifPresent(k -> req.header("Authorization", "Bearer " + k));
            Duration retryAfter = null;
            try {
                HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return textOf(r.body());
                }
                String why = "the transcription endpoint answered " + r.statusCode() + words(r.body());
                if (r.statusCode() != 429 && r.statusCode() < 500) {
                    throw new TranscriptionException(why);
                }
                last = new TranscriptionException(why);
                retryAfter = r.headers().firstValue("Retry-After").flatMap(Transcriber::seconds).orElse(null);
            } catch (TranscriptionException e) {
                throw e;
            } catch (IOException e) {
                last = new TranscriptionException("the transcription endpoint could not be reached ("
                        + (e instanceof java.net.http.HttpTimeoutException ? "no answer within " + settings.timeout().toSeconds() + " s"
                        : e.getClass().getSimpleName()) + ")");
            }
            if (attempt < ATTEMPTS) {
                Optional<Duration> wait = backoff.wait(attempt, retryAfter);
                if (wait.isEmpty()) {
                    break;
                }
                log.info("voice - transcription attempt {} failed ({}); trying again in {} ms", attempt, last.getMessage(), wait.get().toMillis());
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

    private static String textOf(String body) throws TranscriptionException {
        try {
            JsonNode json = JSON.readTree(body);
            JsonNode text = json == null ? null : json.get("text");
            if (text == null || !text.isTextual()) {
                throw new TranscriptionException("the transcription endpoint answered without a text field");
            }
            return text.asText().strip();
        } catch (IOException e) {
            throw new TranscriptionException("the transcription endpoint's answer is not JSON");
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

    private byte[] body(String boundary, byte[] audio, String fileName, String mimeType) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(audio.length + 1024);
        field(out, boundary, "model", settings.model());
        if (settings.language() != null) {
            field(out, boundary, "language", settings.language());
        }
        field(out, boundary, "response_format", "json");
        String safeName = fileName.replaceAll("[^A-Za-z0-9._-]", "_");
        write(out, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + safeName + "\"\r\n"
                + "Content-Type: " + (mimeType == null ? "application/octet-stream" : mimeType.replaceAll("[^\\w./+-]", "")) + "\r\n\r\n");
        out.writeBytes(audio);
        write(out, "\r\n--" + boundary + "--\r\n");
        return out.toByteArray();
    }

    private static void field(ByteArrayOutputStream out, String boundary, String name, String value) {
        write(out, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n");
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        http.close();
    }
}
