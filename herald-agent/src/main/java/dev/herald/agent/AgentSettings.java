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
 */
public record AgentSettings(String systemPrompt, Double temperature, Integer maxTokens, int maxIterations, CompressionSettings compression) {
    public static final int DEFAULT_MAX_ITERATIONS = 30;
    public static final AgentSettings DEFAULT = new AgentSettings(null, null, null);

    public AgentSettings {
        systemPrompt = systemPrompt == null || systemPrompt.isBlank() ? null : systemPrompt;
        if (maxIterations < 1 || maxIterations > 1_000) {
            throw new IllegalArgumentException("agent.max_iterations must be between 1 and 1,000 (got " + maxIterations + ")");
        }
        Objects.requireNonNull(compression, "compression");
    }

    /** Default iteration limit and compression for an unknown model. */
    public AgentSettings(String systemPrompt, Double temperature, Integer maxTokens) {
        this(systemPrompt, temperature, maxTokens, DEFAULT_MAX_ITERATIONS, CompressionSettings.DEFAULT);
    }

    public static AgentSettings withSystemPrompt(String prompt) {
        return new AgentSettings(prompt, null, null);
    }

    public AgentSettings withMaxIterations(int iterations) {
        return new AgentSettings(systemPrompt, temperature, maxTokens, iterations, compression);
    }

    public AgentSettings withCompression(CompressionSettings settings) {
        return new AgentSettings(systemPrompt, temperature, maxTokens, maxIterations, settings);
    }
}
