package dev.herald.agent.voice;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.retry.Backoff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * Speech to text through an OpenAI-compatible {@code POST <base_url>/audio/transcriptions} (multipart: {@code file},
 * {@code model}, optional {@code language}, {@code response_format=json}). Audio goes to the configured endpoint only.
 * A failed call (no connection, a timeout, 429, 5xx) is tried again after a {@link Backoff} wait, three attempts in all,
 * honouring {@code Retry-After}; a 4xx other than 429 is not. Errors name the endpoint's status and words, never the key.
 */
public final class Transcriber implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Why a transcription failed, in words for the model to pass on (no secrets, no internals). */
    public static final class TranscriptionException extends IOException {
        public TranscriptionException(String message) {
            super(message);
        }
    }

    private final VoiceSettings.Transcription settings;
    private final VoiceHttp http;

    public Transcriber(VoiceSettings.Transcription settings) {
        this(settings, Backoff.jittered(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(30)));
    }

    public Transcriber(VoiceSettings.Transcription settings, Backoff backoff) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("voice.transcription.base_url is not set");
        }
        this.settings = settings;
        this.http = new VoiceHttp("transcription", settings.timeout(), backoff);
    }

    /** What was said in {@code audio} (a file named {@code fileName} of type {@code mimeType}). */
    public String transcribe(byte[] audio, String fileName, String mimeType) throws IOException, InterruptedException {
        String boundary = "herald-" + UUID.randomUUID();
        byte[] body = body(boundary, audio, fileName, mimeType);
        URI uri = URI.create(settings.baseUrl() + "/audio/transcriptions");
        byte[] answer;
        try {
            answer = http.call(() -> {
                HttpRequest.Builder req = HttpRequest.newBuilder(uri).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
                settings.apiKey().reveal().ifPresent(k -> req.header("Authorization", "Bearer " + k));
                return req;
            });
        } catch (VoiceHttp.VoiceException e) {
            throw new TranscriptionException(e.getMessage());
        }
        return textOf(new String(answer, StandardCharsets.UTF_8));
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
