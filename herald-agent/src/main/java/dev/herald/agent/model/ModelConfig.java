package dev.herald.agent.model;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.agent.ImagePart;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code model:} the OpenAI-compatible endpoint the agent talks to. Without {@code base_url} the model is
 * "not configured" and {@code herald run} falls back to the built-in demo model. The configuration loader binds the
 * section straight into this record; {@link #settings()} is the client's {@link ModelSettings}, whose defaults
 * {@link #defaults()} reads.
 */
public record ModelConfig(
        @Doc("OpenAI-compatible endpoint, e.g. https://api.openai.com/v1; not set = the built-in demo model answers")
        String baseUrl,
        @Doc("API key sent as a bearer token; optional (local servers need none)")
        Secret apiKey,
        @Doc("model name passed to the endpoint")
        String name,
        @Doc("seconds to wait for the TCP/TLS connection")
        int connectTimeoutSeconds,
        @Doc("seconds a streaming response may stay silent before the call is abandoned")
        int idleTimeoutSeconds,
        @Doc("retries after a failed call (connection error, 429, 5xx) before the turn fails")
        int maxRetries,
        @Doc("system prompt put before every conversation; not set = none")
        String systemPrompt,
        @Doc("the context size the server really serves, in tokens; not set = known per model family, else 8192")
        Integer contextTokens,
        @Doc("the model takes images: photos and image uploads are fetched (through their platform) and shown to it")
        boolean vision,
        @Doc("sampling temperature, 0..2; not set = the server's default (an API request's own value wins)")
        Double temperature,
        @Doc("nucleus sampling, 0..1; not set = the server's default (an API request's own value wins)")
        Double topP,
        @Doc("longest answer in tokens; not set = the server's default (an API request's own value wins)")
        Integer maxTokens,
        @Doc("largest image fetched for a vision model, in bytes; larger ones reach it as an attachment line only")
        long maxImageBytes,
        @Doc("what a million tokens cost (input, output, cached_input), for /usage; not set = no cost is shown")
        PriceConfig pricePerMillion,
        @Doc("the reasoning_effort values the model takes (low, medium, high), for /reasoning; not set = none, and /reasoning is refused")
        java.util.List<String> reasoningEfforts) implements Validated {

    public ModelConfig {
        apiKey = apiKey == null ? Secret.NONE : apiKey;
        pricePerMillion = pricePerMillion == null ? PriceConfig.defaults() : pricePerMillion;
        reasoningEfforts = reasoningEfforts == null ? java.util.List.of() : java.util.List.copyOf(reasoningEfforts);
        baseUrl = blankToNull(baseUrl);
        systemPrompt = blankToNull(systemPrompt);
    }

    public static ModelConfig defaults() {
        return new ModelConfig(null, Secret.NONE, "llama3.1", (int) ModelSettings.DEFAULT_CONNECT_TIMEOUT.toSeconds(),
                (int) ModelSettings.DEFAULT_IDLE_TIMEOUT.toSeconds(), ModelSettings.DEFAULT_MAX_RETRIES, null, null, false, null, null, null,
                ImagePart.DEFAULT_MAX_BYTES, PriceConfig.defaults(), java.util.List.of());
    }

    /** The client's settings for this endpoint. Only when {@link #configured()}. */
    public ModelSettings settings() {
        return new ModelSettings(endpoint().orElseThrow(), apiKey.reveal().orElse(null), name, connectTimeout(), idleTimeout(), maxRetries)
                .withReasoningEfforts(reasoningEfforts);
    }

    /** True when {@code base_url} is set; otherwise the runtime uses the built-in demo model. */
    public boolean configured() {
        return baseUrl != null;
    }

    /** The endpoint as a URI, when configured. Validation guarantees it is absolute http(s) with a host. */
    public Optional<URI> endpoint() {
        return Optional.ofNullable(baseUrl).map(URI::create);
    }

    public Optional<String> systemPromptText() {
        return Optional.ofNullable(systemPrompt);
    }

    public Duration connectTimeout() {
        return Duration.ofSeconds(connectTimeoutSeconds);
    }

    public Duration idleTimeout() {
        return Duration.ofSeconds(idleTimeoutSeconds);
    }

    @Override
    public void validate(ConfigChecks check) {
        if (baseUrl != null) {
            check.require(ConfigChecks.isHttpUrl(baseUrl), "base_url",
                    "must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:11434/v1, was \"" + baseUrl + "\"");
        }
        check.require(name != null, "name", "must be set, e.g. llama3.1 or gpt-4o-mini");
        check.require(connectTimeoutSeconds >= 1, "connect_timeout_seconds", "must be at least 1, was " + connectTimeoutSeconds);
        check.require(idleTimeoutSeconds >= 1, "idle_timeout_seconds", "must be at least 1, was " + idleTimeoutSeconds);
        check.require(maxRetries >= 0 && maxRetries <= 100, "max_retries", "must be 0..100, was " + maxRetries);
        check.require(contextTokens == null || contextTokens >= 1024, "context_tokens", "must be at least 1024, was " + contextTokens);
        checkSampling(check, temperature, topP, maxTokens);
        ModelConfig.checkEfforts(check, reasoningEfforts);
        check.require(maxImageBytes >= 1024, "max_image_bytes", "must be at least 1024, was " + maxImageBytes);
    }

    /** The sampling rules a profile shares. */
    static void checkSampling(ConfigChecks check, Double temperature, Double topP, Integer maxTokens) {
        check.require(temperature == null || temperature >= 0 && temperature <= 2, "temperature", "must be 0..2, was " + temperature);
        check.require(topP == null || topP > 0 && topP <= 1, "top_p", "must be above 0 and at most 1, was " + topP);
        check.require(maxTokens == null || maxTokens >= 1, "max_tokens", "must be at least 1, was " + maxTokens);
    }

    /** {@code reasoning_efforts}: each one of low, medium, high, once. */
    static void checkEfforts(ConfigChecks check, java.util.List<String> efforts) {
        for (String effort : efforts) {
            check.require(dev.herald.agent.model.ModelSettings.EFFORTS.contains(effort), "reasoning_efforts",
                    "takes low, medium and high, was \"" + effort + "\"");
        }
        check.require(efforts.stream().distinct().count() == efforts.size(), "reasoning_efforts", "names an effort twice: " + efforts);
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
