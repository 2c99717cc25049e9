package dev.herald.core.turn;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The diagram in docs/turn-states.md is the one generated from the transition table. Run with
 * {@code -Dherald.regenerate=true} to rewrite the block after changing the table.
 */
class TurnDiagramTest {
    static final Path DOC = Path.of("..", "docs", "turn-states.md");

    @Test
    void docsDiagram_isTheOneGeneratedFromTheTransitionTable() throws IOException {
        String doc = Files.readString(DOC);
        int start = doc.indexOf(TurnDiagram.START_MARKER);
        int end = doc.indexOf(TurnDiagram.END_MARKER);
        assertThat(start).as("%s has the start marker", DOC).isNotNegative();
        assertThat(end).as("%s has the end marker after it", DOC).isGreaterThan(start);
        String block = doc.substring(start + TurnDiagram.START_MARKER.length(), end).strip() + "\n";
        if (Boolean.getBoolean("herald.regenerate") && !block.equals(TurnDiagram.mermaid())) {
            Files.writeString(DOC, doc.substring(0, start + TurnDiagram.START_MARKER.length()) + "\n" + TurnDiagram.mermaid()
                    + doc.substring(end));
            return;
        }

        assertThat(block).as("%s is out of date: run this test with -Dherald.regenerate=true", DOC).isEqualTo(TurnDiagram.mermaid());
    }

    @Test
    void everyStateButTheFirstIsReachable_andEveryNonTerminalStateHasAWayOut() {
        for (TurnState s : TurnState.values()) {
            boolean in = s == TurnState.RECEIVED || java.util.Arrays.stream(TurnTransition.values()).anyMatch(t -> t.to() == s);
            boolean out = java.util.Arrays.stream(TurnTransition.values()).anyMatch(t -> t.from() == s);
            assertThat(in).as("%s is reachable", s).isTrue();
            assertThat(out).as("%s has a way out unless terminal", s).isEqualTo(!s.terminal());
        }
    }

    @Test
    void canMoveTo_readsTheTable() {
        assertThat(TurnState.RECEIVED.canMoveTo(TurnState.RUNNING)).isTrue();
        assertThat(TurnState.RUNNING.canMoveTo(TurnState.RECEIVED)).isFalse();
        assertThat(TurnState.DELIVERED.canMoveTo(TurnState.RUNNING)).isFalse();
        for (TurnTransition t : TurnTransition.values()) {
            assertThat(t.from().canMoveTo(t.to())).as("%s", t).isTrue();
        }
    }
}
