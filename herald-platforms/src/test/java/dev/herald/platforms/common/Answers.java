package dev.herald.platforms.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Fixture answers for the rendering tests, from {@code src/test/resources/answers}. */
public final class Answers {
    private Answers() {
    }

    /** One answer holding every construct the platforms render: heading, bold, italic, strike, code, link, lists, quote, code block, table, rule. */
    public static String everyConstruct() {
        return read("every-construct.md");
    }

    /** The fixture as the platform must receive it: {@code every-construct.<suffix>} without its final newline. */
    public static String everyConstructAs(String suffix) {
        String text = read("every-construct." + suffix);
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    static String read(String name) {
        try (InputStream in = Answers.class.getResourceAsStream("/answers/" + name)) {
            if (in == null) {
                throw new IllegalStateException("test fixture /answers/" + name + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
