package dev.herald.agent.memory;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;

/**
 * {@code agent.memory:} long-term memory per user across sessions (the memory tool, the facts in the system prompt,
 * /memory). The configuration loader binds the section straight into this record and checks it with
 * {@link #validate(ConfigChecks)}; the defaults here are the only ones.
 *
 * @param enabled           whether the agent has the {@code memory} tool and each turn's system prompt the user's facts
 * @param maxEntries        the most facts one user keeps (pending ones count)
 * @param promptBudgetChars the most characters of facts put into one turn's system prompt, newest first
 * @param approveNew        a fact the agent remembers waits for the user's {@code /memory approve <number>} before it is used
 */
public record MemorySettings(
        @Doc("whether the agent has the memory tool and each turn's system prompt carries the user's remembered facts; "
                + "/memory still lists and deletes them when off")
        boolean enabled,
        @Doc("the most facts one user keeps (pending ones count); remembering more is refused until one is forgotten")
        int maxEntries,
        @Doc("the most characters of a user's facts put into each turn's system prompt, newest first (0: none)")
        int promptBudgetChars,
        @Doc("a fact the agent remembers waits for the user's /memory approve <number> before the agent uses it")
        boolean approveNew) implements Validated {
    public static final int DEFAULT_MAX_ENTRIES = 100;
    public static final int DEFAULT_PROMPT_BUDGET = 2_000;
    public static final MemorySettings DEFAULTS = new MemorySettings(true, DEFAULT_MAX_ENTRIES, DEFAULT_PROMPT_BUDGET, false);

    /** Every key at its default: memory on, 100 facts, 2,000 characters, facts used without approval. */
    public static MemorySettings defaults() {
        return DEFAULTS;
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(maxEntries >= 1 && maxEntries <= 10_000, "max_entries", "must be 1..10000, was " + maxEntries);
        check.require(promptBudgetChars >= 0 && promptBudgetChars <= 100_000, "prompt_budget_chars",
                "must be 0..100000, was " + promptBudgetChars);
    }
}
