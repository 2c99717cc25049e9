package dev.herald.agent.memory;

/**
 * {@code agent.memory}: long-term memory per user.
 *
 * @param enabled           whether the agent has the {@code memory} tool and each turn's system prompt the user's facts
 * @param maxEntries        the most facts one user keeps (pending ones count)
 * @param promptBudgetChars the most characters of facts put into one turn's system prompt, newest first
 * @param approveNew        a fact the agent remembers waits for the user's {@code /memory approve <number>} before it is used
 */
public record MemorySettings(boolean enabled, int maxEntries, int promptBudgetChars, boolean approveNew) {
    public static final int DEFAULT_MAX_ENTRIES = 100;
    public static final int DEFAULT_PROMPT_BUDGET = 2_000;
    public static final MemorySettings DEFAULTS = new MemorySettings(true, DEFAULT_MAX_ENTRIES, DEFAULT_PROMPT_BUDGET, false);

    public MemorySettings {
        if (maxEntries < 1 || promptBudgetChars < 0) {
            throw new IllegalArgumentException("memory - max_entries must be at least 1 and prompt_budget_chars at least 0");
        }
    }
}
