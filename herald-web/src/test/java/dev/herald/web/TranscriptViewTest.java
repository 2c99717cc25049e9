package dev.herald.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.transcript.Omissions;
import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pages show rows that /retry or /undo left out of the model's history, marked with the reason. */
class TranscriptViewTest {
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void rowsLeftOutOfTheModelsHistory_areShownWithTheReason() {
        List<TranscriptRow> rows = new ArrayList<>();
        for (TranscriptRow r : List.of(TranscriptRow.user("2+2?", AT), TranscriptRow.assistant("Five.", AT),
                Omissions.marker(1, 2, Omissions.Reason.REPLACED, AT), TranscriptRow.user("2+2?", AT), TranscriptRow.assistant("Four.", AT))) {
            rows.add(r.withSeq(rows.size() + 1));
        }

        List<TranscriptView.Row> view = TranscriptView.rows(rows, 0, 100, 100);

        assertThat(view).extracting(TranscriptView.Row::text).containsExactly("2+2?", "Five.",
                "omitted rows 1-2 from the model (replaced by /retry)", "2+2?", "Four.");
        assertThat(view).extracting(TranscriptView.Row::omitted)
                .containsExactly("replaced by /retry", "replaced by /retry", null, null, null);
    }
}
