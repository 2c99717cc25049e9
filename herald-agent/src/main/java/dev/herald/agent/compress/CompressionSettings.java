package dev.herald.agent.compress;

/**
 * When and how the history is summarized.
 *
 * @param contextTokens {@code model.context_tokens}: the model's context size; unset means
 *                      {@link ContextWindow#forModel} of {@code model.name}
 * @param threshold     {@code agent.compression_threshold}: compress when the estimated request reaches this
 *                      fraction of the context (default 0.8; 0.1 to 1.0)
 * @param keepFraction  the share of the context kept verbatim after compression, newest messages first (0.25;
 *                      not configurable: it leaves room to work after the summary)
 */
public record CompressionSettings(int contextTokens, double threshold, double keepFraction) {
    public static final double DEFAULT_THRESHOLD = 0.8;
    public static final double DEFAULT_KEEP = 0.25;
    public static final CompressionSettings DEFAULT = forModel(null, null);

    public CompressionSettings {
        if (contextTokens < 512) {
            throw new IllegalArgumentException("model.context_tokens must be at least 512 (got " + contextTokens + ")");
        }
        if (!(threshold >= 0.1 && threshold <= 1.0)) {
            throw new IllegalArgumentException("agent.compression_threshold must be between 0.1 and 1.0 (got " + threshold + ")");
        }
        if (!(keepFraction > 0 && keepFraction < threshold)) {
            throw new IllegalArgumentException("the kept share (" + keepFraction + ") must be above 0 and below the threshold (" + threshold + ")");
        }
    }

    /** The settings for a model: {@code configuredTokens} when set, else the family default; default threshold. */
    public static CompressionSettings forModel(String modelName, Integer configuredTokens) {
        return new CompressionSettings(configuredTokens != null ? configuredTokens : ContextWindow.forModel(modelName), DEFAULT_THRESHOLD,
                DEFAULT_KEEP);
    }

    public CompressionSettings withThreshold(double newThreshold) {
        return new CompressionSettings(contextTokens, newThreshold, Math.min(keepFraction, newThreshold / 2));
    }

    /** The estimated size at which a turn compresses before its next model call. */
    public long triggerTokens() {
        return (long) (contextTokens * threshold);
    }

    /** The most tokens kept verbatim. */
    public long keepTokens() {
        return (long) (contextTokens * keepFraction);
    }
}
