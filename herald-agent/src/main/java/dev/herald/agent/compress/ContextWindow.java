package dev.herald.agent.compress;

import java.util.Locale;

/**
 * The context size to assume for a model when {@code model.context_tokens} is not configured, by family
 * name. Deliberately conservative: where a family comes in several sizes, the smaller common one; where a
 * provider's limit is larger than what most deployments serve, the served one. Local servers may serve less
 * than the model supports (Ollama runs with a 4,096-token window unless {@code num_ctx} is raised): set
 * {@code model.context_tokens} to what the server really uses.
 */
public final class ContextWindow {
    /** Used for a model this table does not know. */
    public static final int FALLBACK = 8_192;

    private ContextWindow() {
    }

    /** The assumed context size of {@code model} (null or unknown: {@link #FALLBACK}). */
    public static int forModel(String model) {
        if (model == null || model.isBlank()) {
            return FALLBACK;
        }
        String m = model.toLowerCase(Locale.ROOT);
        if (m.contains("gpt-4o") || m.contains("gpt-4.1") || m.contains("gpt-4-turbo") || m.contains("gpt-5")
                || m.matches("(.*/)?o[134](-.*)?")) {
            return 128_000;
        }
        if (m.contains("gpt-3.5")) {
            return 16_385;
        }
        if (m.contains("gpt-4")) {
            return 8_192;
        }
        if (m.contains("claude")) {
            return 200_000;
        }
        if (m.matches(".*llama[-_]?3[.-]?[123].*")) {
            return 131_072;
        }
        if (m.contains("llama2") || m.contains("llama-2") || m.contains("phi3") || m.contains("phi-3")) {
            return 4_096;
        }
        if (m.contains("qwen") || m.contains("mistral") || m.contains("mixtral")) {
            return 32_768;
        }
        if (m.contains("gemma3") || m.contains("gemma-3")) {
            return 131_072;
        }
        if (m.contains("deepseek")) {
            return 65_536;
        }
        if (m.contains("phi4") || m.contains("phi-4")) {
            return 16_384;
        }
        return FALLBACK;
    }
}
