package dev.herald.core.turn;

import java.util.ArrayList;
import java.util.List;

/**
 * The turn's state diagram in Mermaid, generated from {@link TurnTransition}'s table: a turn enters as
 * RECEIVED, every row of the table is an arrow labelled with its name, and terminal states lead out.
 * {@code docs/turn-states.md} embeds it between markers; a test keeps the two equal.
 */
public final class TurnDiagram {
    /** The markers around the generated block in {@code docs/turn-states.md}. */
    public static final String START_MARKER = "<!-- turn-states:start (generated from TurnTransition; TurnDiagramTest keeps it current) -->";
    public static final String END_MARKER = "<!-- turn-states:end -->";

    private TurnDiagram() {
    }

    /** The diagram as a fenced Mermaid block. */
    public static String mermaid() {
        List<String> lines = new ArrayList<>();
        lines.add("```mermaid");
        lines.add("stateDiagram-v2");
        lines.add("    [*] --> " + TurnState.RECEIVED + ": message stored");
        for (TurnTransition t : TurnTransition.values()) {
            lines.add("    " + t.from() + " --> " + t.to() + ": " + t.name() + " (" + t.label() + ")");
        }
        for (TurnState s : TurnState.values()) {
            if (s.terminal()) {
                lines.add("    " + s + " --> [*]");
            }
        }
        lines.add("```");
        return String.join("\n", lines) + "\n";
    }
}
