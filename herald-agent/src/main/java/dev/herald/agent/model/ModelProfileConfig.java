package dev.herald.agent.model;

import dev.herald.core.config.Doc;
import dev.herald.core.config.Secret;
import dev.herald.core.config.Validated;
import dev.herald.core.config.ConfigChecks;
import java.net.URI;
import java.util.Optional;

/**
 * One entry of {@code models:}: a named model a chat can switch to with {@code /model} and an API caller can name in
 * {@code model}. Keys left out are taken from {@code model:} where that makes sense: the endpoint and its key (when
 * the endpoint is the same), the timeouts, retries, system prompt and image limit.
 */
public record ModelProfileConfig(
        @Doc("OpenAI-compatible endpoint; not set = model.base_url")
        String baseUrl,
        @Doc("API key for base_url; not set = model.api_key when base_url is not set either, else none")
        Secret apiKey,
        @Doc("model name passed to the endpoint; required")
        String name,
        @Doc("the context size the server really serves, in tokens; not set = known per model family, else 8192")
        Integer contextTokens,
        @Doc("the model takes images")
        boolean vision,
        @Doc("sampling temperature, 0..2; not set = the server's default")
        Double temperature,
        @Doc("nucleus sampling, 0..1; not set = the server's default")
        Double topP,
        @Doc("longest answer in tokens; not set = the server's default")
        Integer maxTokens,
        @Doc("what a million tokens cost (input, output, cached_input), for /usage; not set = no cost is shown")
        PriceConfig pricePerMillion,
        @Doc("the reasoning_effort values the model takes (low, medium, high), for /reasoning; not set = none, and /reasoning is refused")
        java.util.List<String> reasoningEfforts) implements Validated {

    public ModelProfileConfig {
        apiKey = apiKey == null ? Secret.NONE : apiKey;
        pricePerMillion = pricePerMillion == null ? PriceConfig.defaults() : pricePerMillion;
        reasoningEfforts = reasoningEfforts == null ? java.util.List.of() : java.util.List.copyOf(reasoningEfforts);
        baseUrl = ModelConfig.blankToNull(baseUrl);
        name = ModelConfig.blankToNull(name);
    }

    public static ModelProfileConfig defaults() {
        return new ModelProfileConfig(null, Secret.NONE, null, null, false, null, null, null, PriceConfig.defaults(), java.util.List.of());
    }

    /** The endpoint: this profile's, else {@code model.base_url}'s (empty when neither is set). */
    public Optional<URI> endpoint(ModelConfig model) {
        return baseUrl != null ? Optional.of(URI.create(baseUrl)) : model.endpoint();
    }

    /** The key: this profile's; else {@code model.api_key} when the endpoint is {@code model}'s too. */
    public Secret key(ModelConfig model) {
        return apiKey.isSet() || baseUrl != null ? apiKey : model.apiKey();
    }

    /** The client's settings for this profile: its endpoint and key, else {@code model}'s, and {@code model}'s timeouts and retries. */
    public ModelSettings settings(ModelConfig model) {
        return new ModelSettings(endpoint(model).orElseThrow(), key(model).reveal().orElse(null), name, model.connectTimeout(),
                model.idleTimeout(), model.maxRetries()).withReasoningEfforts(reasoningEfforts);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(name != null, "name", "must be set: the model's name on its server, e.g. gpt-4o-mini");
        if (baseUrl != null) {
            check.require(ConfigChecks.isHttpUrl(baseUrl), "base_url",
                    "must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:11434/v1, was \"" + baseUrl + "\"");
        }
        check.require(contextTokens == null || contextTokens >= 1024, "context_tokens", "must be at least 1024, was " + contextTokens);
        ModelConfig.checkSampling(check, temperature, topP, maxTokens);
        ModelConfig.checkEfforts(check, reasoningEfforts);
    }
}
