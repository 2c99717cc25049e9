package dev.herald.agent.model;

/** Token counts the server reported for one call. */
public record Usage(long promptTokens, long completionTokens) {
    public Usage {
        if (promptTokens < 0 || completionTokens < 0) {
            throw new IllegalArgumentException("token counts are never negative (" + promptTokens + ", " + completionTokens + ")");
        }
    }

    public long totalTokens() {
        return promptTokens + completionTokens;
    }
}
