package dev.herald.platforms.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON over HTTP for platform clients: POST a JSON body, read a JSON answer, whatever the status.
 *
 * <p>Platform credentials often travel inside URLs (Telegram's {@code /bot<token>/method}) or headers,
 * so nothing this class throws carries a URL, a header or an underlying exception's text unredacted:
 * failures become {@link IOException}s whose message is the failure's kind plus its message with every
 * given secret replaced by {@code ****}, and the original exception is deliberately not chained (its
 * message or stack may name the URL).
 */
public final class JsonHttp {
    /** The shared mapper; thread-safe once built. */
    public static final ObjectMapper JSON = JsonMapper.builder().build();

    /** One answer: the HTTP status and the parsed body ({@link MissingNode} when it was not JSON). */
    public record Reply(int status, JsonNode body, Map<String, List<String>> headers) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }

        public Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst();
        }
    }

    private final HttpClient client;
    private final List<String> secrets;

    /** @param secrets values that must never appear in a message this client produces */
    public JsonHttp(Duration connectTimeout, List<String> secrets) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.secrets = secrets.stream().filter(s -> s != null && !s.isEmpty()).toList();
    }

    /**
     * POSTs {@code body} as JSON to {@code url} and waits at most {@code timeout} for the answer.
     *
     * @throws HttpTimeoutException when the answer did not come in time (message redacted)
     * @throws IOException on any other network failure (message redacted)
     */
    public Reply post(String url, Object body, Map<String, String> headers, Duration timeout) throws IOException {
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            headers.forEach(b::header);
        } catch (IllegalArgumentException e) {
            throw new IOException("the request could not be built (a malformed base URL or credential)");
        }
        HttpResponse<byte[]> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new HttpTimeoutException("no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for an answer");
        } catch (IOException | RuntimeException e) {
            throw new IOException(describe(e));
        }
        return new Reply(r.statusCode(), parse(r.body()), r.headers().map());
    }

    /** POSTs {@code form} (an upload) to {@code url}; answered and failing as {@link #post}. */
    public Reply postMultipart(String url, Multipart form, Map<String, String> headers, Duration timeout) throws IOException {
        return send(url, "POST", form.contentType(), form.body(), headers, timeout);
    }

    /**
     * Sends {@code body} of type {@code contentType} to {@code url} with {@code method} (an upload to a URL the platform
     * gave); answered and failing as {@link #post}.
     */
    public Reply send(String url, String method, String contentType, byte[] body, Map<String, String> headers, Duration timeout)
            throws IOException {
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).header("Content-Type", contentType)
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
            headers.forEach(b::header);
        } catch (IllegalArgumentException e) {
            throw new IOException("the request could not be built (a malformed base URL or credential)");
        }
        HttpResponse<byte[]> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new HttpTimeoutException("no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for an answer");
        } catch (IOException | RuntimeException e) {
            throw new IOException(describe(e));
        }
        return new Reply(r.statusCode(), parse(r.body()), r.headers().map());
    }

    /** The failure's kind and message with secrets masked, e.g. {@code ConnectException: Connection refused}. */
    public String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        if (e.getCause() != null && e.getMessage() == null) {
            text = text + " (" + e.getCause().getClass().getSimpleName()
                    + (e.getCause().getMessage() == null ? "" : ": " + e.getCause().getMessage()) + ")";
        }
        return redact(text);
    }

    /** {@code text} with every secret replaced by {@code ****}. */
    public String redact(String text) {
        String out = text;
        for (String s : secrets) {
            out = out.replace(s, "****");
        }
        return out;
    }

    private static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            return MissingNode.getInstance();
        }
        try {
            return JSON.readTree(new String(body, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            return MissingNode.getInstance();
        }
    }
}
