package dev.herald.app.config;

import dev.herald.agent.memory.MemorySettings;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;

/** {@code agent.memory:} long-term memory per user across sessions (the memory tool, the facts in the system prompt, /memory). */
public record MemoryConfig(
        @Doc("whether the agent has the memory tool and each turn's system prompt carries the user's remembered facts; "
                + "/memory still lists and deletes them when off")
        boolean enabled,
        @Doc("the most facts one user keeps (pending ones count); remembering more is refused until one is forgotten")
        int maxEntries,
        @Doc("the most characters of a user's facts put into each turn's system prompt, newest first (0: none)")
        int promptBudgetChars,
        @Doc("a fact the agent remembers waits for the user's /memory approve <number> before the agent uses it")
        boolean approveNew) implements Validated {

    public static MemoryConfig defaults() {
        MemorySettings d = MemorySettings.DEFAULTS;
        return new MemoryConfig(d.enabled(), d.maxEntries(), d.promptBudgetChars(), d.approveNew());
    }

    /** The settings the agent uses. */
    public MemorySettings settings() {
        return new MemorySettings(enabled, maxEntries, promptBudgetChars, approveNew);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(maxEntries >= 1 && maxEntries <= 10_000, "max_entries", "must be 1..10000, was " + maxEntries);
        check.require(promptBudgetChars >= 0 && promptBudgetChars <= 100_000, "prompt_budget_chars",
                "must be 0..100000, was " + promptBudgetChars);
    }
}
