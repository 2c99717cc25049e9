package dev.herald.core.agent;

import java.util.Objects;

/**
 * One model profile a conversation may use: {@code /model} lists them, the API's {@code model} field and
 * {@code /v1/models} name them. Carries nothing a chat user may not see (no address, no key).
 *
 * @param name   the profile's name, as configured ({@code models.<name>}; the default profile is {@code default})
 * @param model  the model's own name on its server, such as {@code gpt-4o-mini}
 * @param vision the model takes images
 */
public record ModelOption(String name, String model, boolean vision) {
    public ModelOption {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(model, "model");
    }
}
