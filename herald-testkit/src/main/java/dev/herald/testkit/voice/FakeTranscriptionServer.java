package dev.herald.testkit.voice;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;

/**
 * An OpenAI-compatible {@code POST /v1/audio/transcriptions} on a free loopback port, for tests: it parses the
 * multipart form as the real endpoint does, records each request's fields and audio file, and answers with the next
 * scripted answer ({@code {"text": ...}} by default, or a status with an error body).
 */
public final class FakeTranscriptionServer implements AutoCloseable {
    /** One request as the endpoint saw it. */
    public record Request(Map<String, String> fields, String fileName, String fileType, byte[] audio, String authorization) {
    }

    private record Answer(int status, String body) {
    }

    private final HttpServer server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private volatile String text = "";
    private volatile java.nio.file.Path grammar;

    private FakeTranscriptionServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/audio/transcriptions", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    public static FakeTranscriptionServer start() {
        try {
            return new FakeTranscriptionServer();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The base URL, up to {@code /v1}. */
    public URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1");
    }

    /** Every request is answered with this transcript unless an answer is queued. */
    public FakeTranscriptionServer saying(String transcript) {
        this.text = transcript;
        return this;
    }

    /**
     * Every request is answered with what a real offline recogniser hears in its audio: Debian's pocketsphinx (with its
     * US English model), limited to the sentences of the JSGF {@code grammar}, after ffmpeg made the audio 16 kHz mono
     * WAV. A real transcription endpoint, for the one test that checks recognition itself.
     */
    public FakeTranscriptionServer recognising(java.nio.file.Path grammar) {
        this.grammar = grammar;
        return this;
    }

    private static String recognise(byte[] audio, java.nio.file.Path grammar) throws IOException, InterruptedException {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("herald-asr-");
        try {
            java.nio.file.Path in = java.nio.file.Files.write(dir.resolve("in.audio"), audio);
            java.nio.file.Path wav = dir.resolve("in.wav");
            run(List.of("ffmpeg", "-loglevel", "error", "-nostdin", "-y", "-i", in.toString(), "-ac", "1", "-ar", "16000", wav.toString()));
            return run(List.of("pocketsphinx_continuous", "-infile", wav.toString(), "-jsgf", grammar.toString(), "-logfn", "/dev/null")).strip();
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + ")");
        }
        return out;
    }

    /** The next request is answered {@code status} with {@code body}. */
    public FakeTranscriptionServer failNext(int status, String body) {
        answers.add(new Answer(status, body));
        return this;
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("POST")) {
                reply(ex, 405, "{\"error\":{\"message\":\"POST only\"}}");
                return;
            }
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            byte[] body = ex.getRequestBody().readAllBytes();
            Request r;
            try {
                r = parse(type, body, ex.getRequestHeaders().getFirst("Authorization"));
            } catch (IllegalArgumentException e) {
                reply(ex, 400, "{\"error\":{\"message\":\"" + e.getMessage().replace("\"", "'") + "\"}}");
                return;
            }
            requests.add(r);
            Answer a = answers.poll();
            if (a != null) {
                reply(ex, a.status(), a.body());
                return;
            }
            String said = text;
            if (grammar != null) {
                try {
                    said = recognise(r.audio(), grammar);
                } catch (IOException | InterruptedException e) {
                    reply(ex, 500, "{\"error\":{\"message\":\"recognition failed: " + e.getMessage().replace("\"", "'") + "\"}}");
                    return;
                }
            }
            reply(ex, 200, "{\"text\":\"" + said.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
        }
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** The multipart form: fields by name, and the part named {@code file}. */
    static Request parse(String contentType, byte[] body, String authorization) {
        if (contentType == null || !contentType.startsWith("multipart/form-data") || !contentType.contains("boundary=")) {
            throw new IllegalArgumentException("expected multipart/form-data with a boundary, got " + contentType);
        }
        String boundary = contentType.substring(contentType.indexOf("boundary=") + 9).replace("\"", "").strip();
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        Map<String, String> fields = new LinkedHashMap<>();
        String fileName = null;
        String fileType = null;
        byte[] audio = null;
        int at = indexOf(body, delimiter, 0);
        while (at >= 0) {
            int start = at + delimiter.length;
            if (start + 2 <= body.length && body[start] == '-' && body[start + 1] == '-') {
                break;
            }
            start += 2; // CRLF
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), start);
            int next = indexOf(body, ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1), headersEnd);
            if (headersEnd < 0 || next < 0) {
                throw new IllegalArgumentException("a part of the form is not closed");
            }
            String headers = new String(body, start, headersEnd - start, StandardCharsets.UTF_8);
            byte[] content = java.util.Arrays.copyOfRange(body, headersEnd + 4, next);
            String name = param(headers, "name");
            if ("file".equals(name)) {
                fileName = param(headers, "filename");
                fileType = headers.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:"))
                        .map(l -> l.substring(13).strip()).findFirst().orElse(null);
                audio = content;
            } else if (name != null) {
                fields.put(name, new String(content, StandardCharsets.UTF_8));
            }
            at = next + 2;
        }
        if (audio == null) {
            throw new IllegalArgumentException("the form has no file part");
        }
        if (!fields.containsKey("model")) {
            throw new IllegalArgumentException("the form has no model field");
        }
        return new Request(fields, fileName, fileType, audio, authorization);
    }

    private static String param(String headers, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(";\\s*" + key + "=\"([^\"]*)\"").matcher(headers);
        return m.find() ? m.group(1) : null;
    }

    private static int indexOf(byte[] b, byte[] what, int from) {
        outer:
        for (int i = Math.max(0, from); i <= b.length - what.length; i++) {
            for (int k = 0; k < what.length; k++) {
                if (b[i + k] != what[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
