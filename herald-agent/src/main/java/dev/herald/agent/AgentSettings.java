package dev.herald.agent;

import dev.herald.agent.compress.CompressionSettings;
import java.util.Objects;

/**
 * How the agent talks to its model, beyond the connection.
 *
 * @param systemPrompt  {@code model.system_prompt}: sent first on every call; null or blank for none
 * @param temperature   sampling temperature; null leaves the server's default
 * @param maxTokens     the answer's token limit; null leaves the server's default
 * @param maxIterations {@code agent.max_iterations}: most model calls in one turn (default 30, 1 to 1,000); a turn
 *                      still calling tools then ends not completed
 * @param compression   when to summarize the history ({@code model.context_tokens}, {@code agent.compression_threshold})
 * @param topP          nucleus sampling; null leaves the server's default
 * @param vision        the model takes images: image attachments are fetched and shown to it
 * @param maxImageBytes the largest image fetched for it, in bytes
 */
public record AgentSettings(String systemPrompt, Double temperature, Integer maxTokens, int maxIterations, CompressionSettings compression,
        Double topP, boolean vision, long maxImageBytes) {
    public static final int DEFAULT_MAX_ITERATIONS = 30;
    public static final AgentSettings DEFAULT = new AgentSettings(null, null, null);

    public AgentSettings {
        systemPrompt = systemPrompt == null || systemPrompt.isBlank() ? null : systemPrompt;
        if (maxIterations < 1 || maxIterations > 1_000) {
            throw new IllegalArgumentException("agent.max_iterations must be between 1 and 1,000 (got " + maxIterations + ")");
        }
        Objects.requireNonNull(compression, "compression");
        if (maxImageBytes < 1) {
            throw new IllegalArgumentException("the image size limit must be positive (got " + maxImageBytes + ")");
        }
    }

    public AgentSettings(String systemPrompt, Double temperature, Integer maxTokens, int maxIterations, CompressionSettings compression) {
        this(systemPrompt, temperature, maxTokens, maxIterations, compression, null, false, dev.herald.core.agent.ImagePart.DEFAULT_MAX_BYTES);
    }

    /** Default iteration limit and compression for an unknown model. */
    public AgentSettings(String systemPrompt, Double temperature, Integer maxTokens) {
        this(systemPrompt, temperature, maxTokens, DEFAULT_MAX_ITERATIONS, CompressionSettings.DEFAULT);
    }

    public static AgentSettings withSystemPrompt(String prompt) {
        return new AgentSettings(prompt, null, null);
    }

    public AgentSettings withMaxIterations(int iterations) {
        return new AgentSettings(systemPrompt, temperature, maxTokens, iterations, compression, topP, vision, maxImageBytes);
    }

    public AgentSettings withCompression(CompressionSettings settings) {
        return new AgentSettings(systemPrompt, temperature, maxTokens, maxIterations, settings, topP, vision, maxImageBytes);
    }

    /** With sampling (each null leaves the server's default). */
    public AgentSettings withSampling(Double newTemperature, Double newTopP, Integer newMaxTokens) {
        return new AgentSettings(systemPrompt, newTemperature, newMaxTokens, maxIterations, compression, newTopP, vision, maxImageBytes);
    }

    /** With images shown to the model ({@code vision}), fetched up to {@code limit} bytes each. */
    public AgentSettings withVision(boolean sees, long limit) {
        return new AgentSettings(systemPrompt, temperature, maxTokens, maxIterations, compression, topP, sees, limit);
    }
}
