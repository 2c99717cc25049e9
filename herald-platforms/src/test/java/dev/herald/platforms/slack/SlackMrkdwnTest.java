package dev.herald.platforms.slack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.platforms.common.Answers;
import org.junit.jupiter.api.Test;

class SlackMrkdwnTest {
    @Test
    void render_everyConstruct_isSlackMrkdwn() {
        assertThat(SlackMrkdwn.render(Answers.everyConstruct())).isEqualTo(Answers.everyConstructAs("slack.txt"));
    }

    @Test
    void render_textThatLooksLikeASlackControlSequence_cannotPingTheChannel() {
        assertThat(SlackMrkdwn.render("hello <!channel> and <@U123>")).isEqualTo("hello &lt;!channel&gt; and &lt;@U123&gt;");
    }

    @Test
    void render_linkWhoseTextIsItsUrl_isABareLink() {
        assertThat(SlackMrkdwn.render("<https://x.invalid/a>")).isEqualTo("<https://x.invalid/a>");
    }
}
