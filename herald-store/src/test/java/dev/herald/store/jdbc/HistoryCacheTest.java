package dev.herald.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.transcript.TranscriptRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounds and the write-through rules of {@link HistoryCache}; what a load returns is in the transcript contract. */
class HistoryCacheTest {
    private static final Instant AT = Instant.parse("2026-12-03T12:00:00Z");

    private static List<TranscriptRow> rows(int n, int chars) {
        List<TranscriptRow> rows = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            rows.add(TranscriptRow.user("x".repeat(chars), AT).withSeq(i));
        }
        return rows;
    }

    @Test
    void loaded_moreSessionsThanTheBound_dropsTheLeastRecentlyUsed() {
        HistoryCache cache = new HistoryCache(2, 1 << 20);
        cache.loaded("a", null, rows(1, 10));
        cache.loaded("b", null, rows(1, 10));
        assertThat(cache.get("a")).isNotNull(); // a is now the most recently used

        cache.loaded("c", null, rows(1, 10));

        assertThat(cache.sessions()).isEqualTo(2);
        assertThat(cache.get("b")).isNull();
        assertThat(cache.get("a")).hasSize(1);
        assertThat(cache.get("c")).hasSize(1);
    }

    @Test
    void loaded_moreBytesThanTheBound_dropsOldSessionsAndNeverKeepsOneOverAQuarter() {
        long one = HistoryCache.sizeOf(rows(1, 1_000).get(0));
        HistoryCache cache = new HistoryCache(100, 10 * one);
        cache.loaded("a", null, rows(2, 1_000));
        cache.loaded("b", null, rows(2, 1_000));
        cache.loaded("c", null, rows(2, 1_000));
        cache.loaded("d", null, rows(2, 1_000));
        cache.loaded("e", null, rows(2, 1_000));
        cache.loaded("f", null, rows(2, 1_000));

        assertThat(cache.bytes()).isLessThanOrEqualTo(10 * one);
        assertThat(cache.get("a")).isNull();
        assertThat(cache.get("f")).hasSize(2);

        cache.loaded("huge", null, rows(3, 1_000));
        assertThat(cache.get("huge")).as("over a quarter of the bound").isNull();
    }

    @Test
    void appended_continuingTheCopy_extendsIt_andAGapDropsIt() {
        HistoryCache cache = new HistoryCache();
        cache.loaded("a", null, rows(2, 5));

        cache.appended("a", TranscriptRow.assistant("third", AT).withSeq(3));
        assertThat(cache.get("a")).extracting(TranscriptRow::content).containsExactly("xxxxx", "xxxxx", "third");

        cache.appended("a", TranscriptRow.assistant("fifth", AT).withSeq(5)); // row 4 was written elsewhere
        assertThat(cache.get("a")).isNull();
    }

    @Test
    void appended_toASessionNotReadYet_keepsNothing() {
        HistoryCache cache = new HistoryCache();

        cache.appended("new", TranscriptRow.user("hi", AT).withSeq(1));

        assertThat(cache.get("new")).as("a copy starts with a read from the store").isNull();
        assertThat(cache.sessions()).isZero();
    }

    @Test
    void loaded_olderThanACopyWrittenThroughMeanwhile_keepsTheNewerCopy() {
        HistoryCache cache = new HistoryCache();
        cache.loaded("a", null, rows(1, 5));
        HistoryCache.Rows before = cache.get("a");
        cache.appended("a", TranscriptRow.assistant("two", AT).withSeq(2));

        List<TranscriptRow> stale = cache.loaded("a", null, rows(1, 5)); // a read that began before the append

        assertThat(stale).hasSize(1);
        assertThat(before).hasSize(1);
        assertThat(cache.get("a")).hasSize(2);
    }
}
