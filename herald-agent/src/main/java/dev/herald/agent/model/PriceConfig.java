package dev.herald.agent.model;

import dev.herald.core.agent.ModelOption;
import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.Validated;

/**
 * {@code price_per_million:} of a model profile: what a million tokens cost, in whatever currency the operator bills in.
 * {@code /usage} shows a cost only when both {@code input} and {@code output} are set.
 */
public record PriceConfig(
        @Doc("price of a million input tokens; not set = no cost is shown")
        Double input,
        @Doc("price of a million output tokens; not set = no cost is shown")
        Double output,
        @Doc("price of a million cached input tokens (kept for when Herald counts them apart; until then input's applies)")
        Double cachedInput) implements Validated {

    public static PriceConfig defaults() {
        return new PriceConfig(null, null, null);
    }

    /** The prices as the agent's profiles carry them. */
    public ModelOption.Prices prices() {
        return new ModelOption.Prices(input, output, cachedInput);
    }

    @Override
    public void validate(ConfigChecks check) {
        check.require(input == null || input >= 0, "input", "must not be negative, was " + input);
        check.require(output == null || output >= 0, "output", "must not be negative, was " + output);
        check.require(cachedInput == null || cachedInput >= 0, "cached_input", "must not be negative, was " + cachedInput);
        check.require((input == null) == (output == null), "input",
                "input and output are set together (a cost needs both), was input " + input + ", output " + output);
    }
}
