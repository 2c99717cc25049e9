package dev.herald.web.api;

/** Token counts of one request, summed over every model call of its turn. */
record Usage(long promptTokens, long completionTokens) {
    static final Usage NONE = new Usage(0, 0);

    Usage plus(long prompt, long completion) {
        return new Usage(promptTokens + Math.max(0, prompt), completionTokens + Math.max(0, completion));
    }

    long totalTokens() {
        return promptTokens + completionTokens;
    }
}
