package dev.herald.agent.persona;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;

/**
 * One persona under {@code personalities:}, chosen per chat with {@code /personality <name>}: instructions added to the
 * model profile's system prompt, and optionally the model profile the chat then uses.
 */
public record PersonalityConfig(
        @Doc("instructions added after the model profile's system_prompt (a blank line between) on every call of the chat's turns")
        String systemPrompt,
        @Doc("the model profile the chat's turns use (default, or a name under models:) unless the chat chooses /model after; "
                + "not set = the chat's model")
        String model) implements Validated {

    public static PersonalityConfig defaults() {
        return new PersonalityConfig(null, null);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(systemPrompt != null && !systemPrompt.isBlank(), "system_prompt", "is needed: what the persona adds to the instructions");
    }
}
