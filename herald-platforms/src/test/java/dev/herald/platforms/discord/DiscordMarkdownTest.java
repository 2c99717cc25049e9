package dev.herald.platforms.discord;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.platforms.common.Answers;
import org.junit.jupiter.api.Test;

class DiscordMarkdownTest {
    @Test
    void render_everyConstruct_isDiscordMarkdown() {
        assertThat(DiscordMarkdown.render(Answers.everyConstruct())).isEqualTo(Answers.everyConstructAs("discord.md"));
    }

    @Test
    void render_literalMarkupCharacters_areEscaped_butBareUrlsStayClickable() {
        assertThat(DiscordMarkdown.render("2 \\* 3 = 6, see https://x.invalid/a_b_c and snake\\_case"))
                .isEqualTo("2 \\* 3 = 6, see https://x.invalid/a_b_c and snake\\_case");
    }

    @Test
    void render_deepHeading_isABoldLine() {
        assertThat(DiscordMarkdown.render("#### Details")).isEqualTo("**Details**");
    }
}
