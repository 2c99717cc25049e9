package dev.herald.agent.model;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How to reach an OpenAI-compatible model server. Validated on construction, then immutable;
 * {@link #toString()} masks the API key.
 *
 * @param baseUrl        the API root, such as {@code http://127.0.0.1:11434/v1} (a trailing slash is dropped)
 * @param apiKey         the bearer key; null or blank when the server needs none
 * @param model          the model name sent with every request
 * @param connectTimeout how long to wait for a TCP connection; null means 10 s
 * @param idleTimeout    how long a call may go without receiving any bytes (headers or stream data) before
 *                       it fails with a retryable timeout; null means 120 s. For a non-streamed call this
 *                       bounds the whole generation.
 * @param maxRetries     retries after the first attempt on 429, 5xx and connection errors (0 to 10)
 * @param reasoningEfforts the {@code reasoning_effort} values the model takes ({@link #EFFORTS}, config
 *                       {@code reasoning_efforts}); empty: it takes none, and a request's effort is not sent
 */
public record ModelSettings(URI baseUrl, String apiKey, String model, Duration connectTimeout, Duration idleTimeout, int maxRetries,
        java.util.List<String> reasoningEfforts) {
    /** The reasoning efforts a profile may list, in order. */
    public static final java.util.List<String> EFFORTS = java.util.List.of("low", "medium", "high");
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);
    public static final int DEFAULT_MAX_RETRIES = 3;

    public ModelSettings {
        Objects.requireNonNull(baseUrl, "model.base_url is required");
        String scheme = baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || baseUrl.getHost() == null) {
            throw new IllegalArgumentException("model.base_url must be an http:// or https:// URL such as http://127.0.0.1:11434/v1 (got '"
                    + baseUrl + "')");
        }
        if (baseUrl.getRawUserInfo() != null) {
            throw new IllegalArgumentException("model.base_url must not contain credentials; put the key in model.api_key");
        }
        baseUrl = withoutTrailingSlash(baseUrl);
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("model.name is required, such as llama3.1");
        }
        model = model.strip();
        connectTimeout = positive(connectTimeout, DEFAULT_CONNECT_TIMEOUT, "model.connect_timeout");
        idleTimeout = positive(idleTimeout, DEFAULT_IDLE_TIMEOUT, "model.idle_timeout");
        if (maxRetries < 0 || maxRetries > 10) {
            throw new IllegalArgumentException("model.max_retries must be between 0 and 10 (got " + maxRetries + ")");
        }
        reasoningEfforts = reasoningEfforts == null ? java.util.List.of() : java.util.List.copyOf(reasoningEfforts);
        for (String effort : reasoningEfforts) {
            if (!EFFORTS.contains(effort)) {
                throw new IllegalArgumentException("model.reasoning_efforts takes " + EFFORTS + " (got '" + effort + "')");
            }
        }
    }

    /** Settings without reasoning efforts. */
    public ModelSettings(URI baseUrl, String apiKey, String model, Duration connectTimeout, Duration idleTimeout, int maxRetries) {
        this(baseUrl, apiKey, model, connectTimeout, idleTimeout, maxRetries, java.util.List.of());
    }

    /** With the reasoning efforts the model takes ({@code reasoning_efforts}). */
    public ModelSettings withReasoningEfforts(java.util.List<String> efforts) {
        return new ModelSettings(baseUrl, apiKey, model, connectTimeout, idleTimeout, maxRetries, efforts);
    }

    /** Settings with default timeouts and retries and no API key. */
    public static ModelSettings of(URI baseUrl, String model) {
        return new ModelSettings(baseUrl, null, model, null, null, DEFAULT_MAX_RETRIES);
    }

    public ModelSettings withApiKey(String key) {
        return new ModelSettings(baseUrl, key, model, connectTimeout, idleTimeout, maxRetries, reasoningEfforts);
    }

    public ModelSettings withTimeouts(Duration connect, Duration idle) {
        return new ModelSettings(baseUrl, apiKey, model, connect, idle, maxRetries, reasoningEfforts);
    }

    public ModelSettings withMaxRetries(int retries) {
        return new ModelSettings(baseUrl, apiKey, model, connectTimeout, idleTimeout, retries, reasoningEfforts);
    }

    public boolean hasApiKey() {
        return apiKey != null;
    }

    /** The base URL as text, for messages. */
    public String endpoint() {
        return baseUrl.toString();
    }

    /** {@code {base_url}/chat/completions}, keeping any query string. */
    public URI chatCompletionsUri() {
        try {
            return new URI(baseUrl.getScheme(), baseUrl.getRawAuthority() == null ? null : baseUrl.getAuthority(),
                    (baseUrl.getPath() == null ? "" : baseUrl.getPath()) + "/chat/completions", baseUrl.getQuery(), null);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot build the chat completions URL from " + baseUrl, e);
        }
    }

    @Override
    public String toString() {
        return "ModelSettings[baseUrl=" + baseUrl + ", apiKey=" + (apiKey == null ? "(none)" : "***") + ", model=" + model
                + ", connectTimeout=" + connectTimeout.toMillis() + " ms, idleTimeout=" + idleTimeout.toMillis()
                + " ms, maxRetries=" + maxRetries + (reasoningEfforts.isEmpty() ? "" : ", reasoningEfforts=" + reasoningEfforts) + "]";
    }

    private static URI withoutTrailingSlash(URI uri) {
        String text = uri.toString();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        return URI.create(text);
    }

    private static Duration positive(Duration value, Duration fallback, String name) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive (got " + value.toMillis() + " ms)");
        }
        return value;
    }
}
