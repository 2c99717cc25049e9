package dev.herald.core.platform;

import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * How a platform writes the Markdown the agent answers in, as far as the core needs to know: the dialect's name (for
 * logs and the docs) and the length a text has once the adapter has rewritten it, as the platform counts it against
 * {@link Capabilities#maxTextLength()}. The gateway splits replies so that every part fits by this measure.
 *
 * @param dialect what the platform shows ({@code markdown}, or the adapter's own name for its dialect)
 * @param length  the length of a Markdown text once written in this dialect
 */
public record TextFormat(String dialect, ToIntFunction<String> length) {
    /** Markdown sent as the agent wrote it: its length is its own. */
    public static final TextFormat MARKDOWN = new TextFormat("markdown", String::length);

    public TextFormat {
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(length, "length");
    }

    /** The length of {@code markdown} once written in this dialect. */
    public int lengthOf(String markdown) {
        return length.applyAsInt(markdown);
    }

    @Override
    public String toString() {
        return dialect;
    }
}
