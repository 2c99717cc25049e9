package dev.herald.core.agent;

import java.util.Objects;

/**
 * One model profile a conversation may use: {@code /model} lists them, the API's {@code model} field and
 * {@code /v1/models} name them. Carries nothing a chat user may not see (no address, no key).
 *
 * @param name   the profile's name, as configured ({@code models.<name>}; the default profile is {@code default})
 * @param model  the model's own name on its server, such as {@code gpt-4o-mini}
 * @param vision the model takes images
 * @param prices what a million tokens cost, as configured ({@code price_per_million}); {@link Prices#NONE} when not set
 */
public record ModelOption(String name, String model, boolean vision, Prices prices) {
    public ModelOption {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(model, "model");
        prices = prices == null ? Prices.NONE : prices;
    }

    /** A profile without prices. */
    public ModelOption(String name, String model, boolean vision) {
        this(name, model, vision, Prices.NONE);
    }

    /**
     * The price of a million tokens, in the operator's currency; null where not configured. Cached input tokens are not
     * counted apart yet, so {@code cachedInput} is kept for when they are.
     */
    public record Prices(Double input, Double output, Double cachedInput) {
        public static final Prices NONE = new Prices(null, null, null);

        /** Whether both the input and the output price are set: only then is a cost shown. */
        public boolean known() {
            return input != null && output != null;
        }

        /** The cost of {@code in} input and {@code out} output tokens; only when {@link #known}. */
        public double cost(long in, long out) {
            return (in * input + out * output) / 1_000_000d;
        }
    }
}
