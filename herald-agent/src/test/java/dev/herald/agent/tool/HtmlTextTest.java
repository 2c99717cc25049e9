package dev.herald.agent.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.agent.Interrupt;
import org.junit.jupiter.api.Test;

/** HTML to text: what is kept, and that a stop or the call's deadline ends the work while it converts. */
class HtmlTextTest {
    private static WorkBudget plenty() {
        return new WorkBudget(System.nanoTime() + 60_000_000_000L, new Interrupt());
    }

    @Test
    void toText_keepsTitleAndBlocksOnTheirOwnLinesAndDropsScriptsStylesAndComments() {
        String html = "<!doctype html><html><head><title>The  title</title><style>p{color:red}</style></head><body>"
                + "<script>alert('x')</script><!-- hidden --><h1>Head &amp; more</h1><p>One   two<br>three&nbsp;four</p>"
                + "<ul><li>a</li><li>b</li></ul><noscript>no</noscript><svg><text>drawn</text></svg>tail</body></html>";

        assertThat(HtmlText.toText(html, plenty())).isEqualTo("The title\nHead & more\nOne two\nthree four\na\nb\ntail");
    }

    @Test
    void toText_withTheTurnStopped_endsWithAnInterruptedExhaustion() {
        Interrupt interrupt = new Interrupt();
        interrupt.raise("/stop");

        assertThatThrownBy(() -> HtmlText.toText("<div>".repeat(100_000), new WorkBudget(System.nanoTime() + 60_000_000_000L, interrupt)))
                .isInstanceOfSatisfying(WorkBudget.Exhausted.class, e -> assertThat(e.interrupted()).isTrue());
    }

    @Test
    void toText_pastTheCallsDeadline_endsWithATimeExhaustion() {
        WorkBudget spent = new WorkBudget(System.nanoTime() - 1, new Interrupt());

        assertThatThrownBy(() -> HtmlText.toText("<p>x</p>".repeat(10_000), spent))
                .isInstanceOfSatisfying(WorkBudget.Exhausted.class, e -> assertThat(e.interrupted()).isFalse());
    }
}
