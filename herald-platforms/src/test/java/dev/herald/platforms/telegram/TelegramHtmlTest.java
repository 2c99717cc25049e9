package dev.herald.platforms.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.outbox.TextSplitter;
import dev.herald.platforms.common.Answers;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TelegramHtmlTest {
    private static final Pattern TAG = Pattern.compile("<(/?)([a-z]+)[^>]*>");

    @Test
    void render_everyConstruct_isTelegramHtml() {
        assertThat(TelegramHtml.render(Answers.everyConstruct())).isEqualTo(Answers.everyConstructAs("telegram.html"));
    }

    @Test
    void plain_everyConstruct_hasNoMarkupAndKeepsTheLinkTarget() {
        String plain = TelegramHtml.plain(Answers.everyConstruct());

        assertThat(plain).doesNotContain("<b>", "**2.0**", "&amp;", "```").contains("Herald 2.0 is out, with no fewer bugs & a <safer> default.")
                .contains("the guide (https://docs.herald.invalid/guide?a=1&b=2)").contains("Telegram | 4096");
    }

    @Test
    void visibleLength_countsTheTextTelegramShows_notTheTags() {
        assertThat(TelegramHtml.visibleLength("**bold** & <x>")).isEqualTo("bold & <x>".length());
    }

    @Test
    void render_linkWithAScriptScheme_keepsOnlyItsText() {
        assertThat(TelegramHtml.render("[click](javascript:alert(1))")).isEqualTo("click");
    }

    @Test
    void splitThenRender_anyCutOfMarkdown_givesBalancedTagsInEveryPart() {
        Random random = new Random(42);
        String answer = (Answers.everyConstruct() + "\n\n").repeat(60);
        for (int round = 0; round < 20; round++) {
            int limit = 200 + random.nextInt(1500);
            List<String> parts = TextSplitter.split(answer, limit, TelegramHtml::sendLength);
            for (String part : parts) {
                String html = TelegramHtml.render(part);
                assertThat(balanced(html)).as("tags balanced in %s", html).isTrue();
                assertThat(TelegramHtml.visibleLength(part)).isLessThanOrEqualTo(limit);
                assertThat(TelegramHtml.plain(part).length()).as("the plain fallback fits too").isLessThanOrEqualTo(limit);
            }
        }
    }

    private static boolean balanced(String html) {
        Deque<String> open = new ArrayDeque<>();
        Matcher m = TAG.matcher(html);
        while (m.find()) {
            if (m.group(1).isEmpty()) {
                open.push(m.group(2));
            } else if (open.isEmpty() || !open.pop().equals(m.group(2))) {
                return false;
            }
        }
        return open.isEmpty();
    }
}
