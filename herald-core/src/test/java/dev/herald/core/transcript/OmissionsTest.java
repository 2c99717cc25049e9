package dev.herald.core.transcript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.agent.ChatMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rows left out of what the model sees by a marker row ({@code /retry}, {@code /undo}), kept in the transcript. */
class OmissionsTest {
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    private static List<TranscriptRow> stored(TranscriptRow... rows) {
        List<TranscriptRow> out = new ArrayList<>();
        for (TranscriptRow r : rows) {
            out.add(r.withSeq(out.size() + 1));
        }
        return out;
    }

    @Test
    void agentHistory_skipsTheRowsAMarkerNames_andKeepsTheRest() {
        List<TranscriptRow> rows = stored(TranscriptRow.user("one", AT), TranscriptRow.assistant("first", AT),
                TranscriptRow.user("two", AT), TranscriptRow.assistantToolCalls(null, List.of(new ToolCall("c1", "clock", "{}")), AT),
                TranscriptRow.tool("c1", "clock", "noon", AT), TranscriptRow.assistant("second", AT),
                Omissions.marker(3, 6, Omissions.Reason.UNDONE, AT), TranscriptRow.user("three", AT));

        assertThat(AgentHistory.from(rows)).extracting(ChatMessage::content).containsExactly("one", "first", "three");
        assertThat(rows.get(6).content()).isEqualTo("omitted rows 3-6 from the model (undone by /undo)");
        assertThat(Omissions.reason(rows.get(6))).isEqualTo("undone by /undo");
        assertThat(AgentHistory.from(rows.subList(0, 6))).hasSize(6); // without the marker, everything is seen
    }

    @Test
    void endsWithToolResult_looksPastOmittedRows() {
        List<TranscriptRow> rows = stored(TranscriptRow.user("one", AT),
                TranscriptRow.assistantToolCalls(null, List.of(new ToolCall("c1", "clock", "{}")), AT),
                TranscriptRow.tool("c1", "clock", "noon", AT), TranscriptRow.user("two", AT), TranscriptRow.assistant("answer", AT),
                Omissions.marker(4, 5, Omissions.Reason.REPLACED, AT));

        assertThat(AgentHistory.endsWithToolResultRow(rows)).isTrue();
        assertThat(AgentHistory.endsWithToolResultRow(rows.subList(0, 5))).isFalse();
    }

    @Test
    void otherMetaRows_andBadRanges_areNotMarkers() {
        assertThat(Omissions.parse(TranscriptRow.meta("omitted rows a-b from the model (x)", AT))).isNull();
        assertThat(Omissions.parse(TranscriptRow.user("omitted rows 1-2 from the model (undone by /undo)", AT))).isNull();
        assertThat(Omissions.parse(TranscriptRow.meta("note", AT))).isNull();
        assertThatThrownBy(() -> Omissions.marker(5, 4, Omissions.Reason.UNDONE, AT)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Omissions.omitted(TranscriptRow.user("unsaved", AT), List.of(new Omissions.Range(0, 9)))).isFalse();
    }
}
