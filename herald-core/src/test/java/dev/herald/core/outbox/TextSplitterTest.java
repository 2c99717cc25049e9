package dev.herald.core.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TextSplitterTest {

    @Test
    void shortText_isOnePart() {
        assertThat(TextSplitter.split("hello", 100)).containsExactly("hello");
    }

    @Test
    void longText_splitsAtLineBreaksWithinTheLimit() {
        String text = "line one is here\n".repeat(20);
        List<String> parts = TextSplitter.split(text, 100);
        assertThat(parts).hasSizeGreaterThan(1).allMatch(p -> p.length() <= 100);
        assertThat(String.join("\n", parts).replace("\n\n", "\n")).contains("line one is here");
        assertThat(String.join("", parts).replace("\n", "")).isEqualTo(text.replace("\n", ""));
    }

    @Test
    void splitInsideACodeBlock_closesAndReopensTheFence() {
        String code = "```java\n" + "int x = 1;\n".repeat(30) + "```\nafter";
        List<String> parts = TextSplitter.split(code, 120);
        assertThat(parts).hasSizeGreaterThan(1).allMatch(p -> p.length() <= 120);
        for (String p : parts) {
            assertThat(TextSplitter.openFenceLanguage(p)).as("every part has balanced fences: %s", p).isNull();
        }
        assertThat(parts.get(1)).startsWith("```java\n");
    }

    @Test
    void aWordLongerThanTheLimit_isCut() {
        String word = "x".repeat(250);
        List<String> parts = TextSplitter.split(word, 100);
        assertThat(parts).allMatch(p -> p.length() <= 100);
        assertThat(String.join("", parts)).isEqualTo(word);
    }

    @Test
    void measuredSplit_partsWhoseRewrittenFormIsLonger_areSplitAgainUntilTheyFit() {
        String text = "a&b ".repeat(400); // 1,600 characters; a platform that escapes & as &amp; sends 2,800
        java.util.function.ToIntFunction<String> escaped = s -> s.replace("&", "&amp;").length();

        List<String> parts = TextSplitter.split(text, 1000, escaped);

        assertThat(parts).allSatisfy(p -> assertThat(escaped.applyAsInt(p)).isLessThanOrEqualTo(1000));
        assertThat(String.join("", parts).replace(" ", "")).isEqualTo(text.replace(" ", ""));
        assertThat(parts).hasSizeGreaterThan(2);
    }

    @Test
    void measuredSplit_textThatFitsOnceRewritten_isOnePart() {
        assertThat(TextSplitter.split("**bold** ".repeat(100), 700, s -> s.replace("**", "").length())).hasSize(1);
    }
}
