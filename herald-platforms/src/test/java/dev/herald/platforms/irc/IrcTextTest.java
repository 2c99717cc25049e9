package dev.herald.platforms.irc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.platforms.common.Answers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Markdown as IRC plain text, and text as lines within a byte budget. */
class IrcTextTest {
    @Test
    void everyConstruct_becomesReadablePlainText() {
        String text = IrcText.render(Answers.everyConstruct());

        assertThat(text).contains("Release notes", "Herald 2.0 is out, with no `fewer` bugs & a <safer> default.",
                "the guide (https://docs.herald.invalid/guide?a=1&b=2)", "1. Install it", "- then open the chat", "> Quoted advice",
                "```java\nif (a < b && b > c) { System.out.println(\"**not bold**\"); }\n```", "Plain end.")
                .doesNotContain("**2.0**", "*out*", "~~no~~", "](");
    }

    @Test
    void aLineWithoutSpaces_isCutBetweenCharacters_andEveryPieceFitsItsBytes() {
        String line = "é😀a".repeat(300) + "x".repeat(700);

        List<String> pieces = IrcText.lines(line, "alice: ", 100);

        assertThat(pieces).allSatisfy(p -> {
            assertThat(p.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(100);
            assertThat(p).startsWith("alice: ");
            assertThat(new String(p.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).as("no half of a character").isEqualTo(p);
        });
        assertThat(String.join("", pieces.stream().map(p -> p.substring(7)).toList())).isEqualTo(line);
    }

    @Test
    void anEmojiWithItsModifier_staysWhole_whenALineIsCut() {
        String thumbs = "\ud83d\udc4d\ud83c\udffd"; // thumbs up, medium skin tone: 8 bytes, one character
        List<String> pieces = IrcText.lines("ab" + thumbs.repeat(3), "", 12);

        assertThat(pieces).containsExactly("ab" + thumbs, thumbs, thumbs);
    }

    @Test
    void wordsAreKeptWhole_whenThereIsASpaceToCutAt() {
        assertThat(IrcText.lines("one two three four", "", 10)).containsExactly("one two", "three four");
    }

    @Test
    void controlCharactersAndBlankLines_neverReachTheWire() {
        assertThat(IrcText.lines("a\r\nQUIT :x\u0000\n\n\u0001ACTION y\u0001\tz", "", 100)).containsExactly("a", "QUIT :x", "ACTION y    z");
    }
}
