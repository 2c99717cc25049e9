package dev.herald.agent.voice;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.retry.Backoff;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/**
 * Text to speech through an OpenAI-compatible {@code POST <base_url>/audio/speech} ({@code model}, {@code input},
 * {@code voice}, {@code response_format}), tried again as {@link VoiceHttp} does. The text is only ever sent to the
 * configured endpoint.
 */
public final class Speaker implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final VoiceSettings.Speech settings;
    private final VoiceHttp http;

    public Speaker(VoiceSettings.Speech settings) {
        this(settings, Backoff.jittered(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(30)));
    }

    public Speaker(VoiceSettings.Speech settings, Backoff backoff) {
        if (!settings.enabled()) {
            throw new IllegalArgumentException("voice.speech.base_url is not set");
        }
        this.settings = settings;
        this.http = new VoiceHttp("speech", settings.timeout(), backoff);
    }

    /** {@code text} spoken, in {@link VoiceSettings.Speech#format()}; an IOException says why not (no secrets). */
    public byte[] speak(String text) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", settings.model()).put("input", text).put("voice", settings.voice())
                .put("response_format", settings.format().wire());
        byte[] json = JSON.writeValueAsBytes(body);
        URI uri = URI.create(settings.baseUrl() + "/audio/speech");
        byte[] audio = http.call(() -> {
            HttpRequest.Builder req = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(json));
            settings.apiKey().reveal().ifPresent(k -> req.header("Authorization", "Bearer " + k));
            return req;
        });
        if (audio.length == 0) {
            throw new IOException("the speech endpoint answered with no audio");
        }
        if (settings.format() == VoiceSettings.SpeechFormat.OPUS && !AudioFiles.typeOf(audio).orElse("").equals("audio/ogg")) {
            throw new IOException("the speech endpoint was asked for OGG/Opus and answered " + AudioFiles.typeOf(audio).orElse("something else"));
        }
        return audio;
    }

    @Override
    public void close() {
        http.close();
    }

    /**
     * What is read aloud of an answer written in Markdown: code blocks and tables are not read (a short "see the text"
     * instead), links read as their text, emphasis and heading marks dropped; cut at {@code max} characters at a
     * sentence's end where one is near, with a note that the rest is in the text.
     */
    public static String spoken(String markdown, int max) {
        StringBuilder out = new StringBuilder();
        boolean inCode = false;
        boolean inTable = false;
        for (String line : markdown.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith("```") || t.startsWith("~~~")) {
                if (!inCode) {
                    out.append("(The code is in the text.)\n");
                }
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            boolean tableRow = t.startsWith("|") && t.endsWith("|") && t.length() > 1;
            if (tableRow) {
                if (!inTable) {
                    out.append("(The table is in the text.)\n");
                }
                inTable = true;
                continue;
            }
            inTable = false;
            String s = t.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // links and images: their text
                    .replaceAll("^#{1,6}\\s+", "")
                    .replaceAll("^[-*+]\\s+", "")
                    .replaceAll("`([^`]*)`", "$1")
                    .replaceAll("(\\*\\*|__|\\*|_|~~)(?=\\S)(.+?)(?<=\\S)\\1", "$2")
                    .replaceAll("https?://\\S+", "(a link)");
            out.append(s).append('\n');
        }
        String text = out.toString().replaceAll("\n{2,}", "\n").strip();
        if (text.length() <= max) {
            return text;
        }
        String note = " The rest is in the text.";
        int limit = Math.max(1, max - note.length());
        String cut = text.substring(0, limit);
        int end = Math.max(cut.lastIndexOf(". "), Math.max(cut.lastIndexOf("! "), Math.max(cut.lastIndexOf("? "), cut.lastIndexOf('\n'))));
        if (end > limit / 2) {
            cut = cut.substring(0, end + 1);
        }
        return cut.strip() + note;
    }
}
