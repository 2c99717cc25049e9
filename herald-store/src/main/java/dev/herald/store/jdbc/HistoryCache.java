package dev.herald.store.jdbc;

import dev.herald.core.transcript.TranscriptRow;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * The transcripts this process read or wrote lately, so that a continuing turn does not read again what it already has.
 *
 * <p><b>Why it is right.</b> A session's rows are only ever appended, with a dense {@code seq} from 1, and only deleted
 * all at once with their session (a purge; session ids are never reused). So a cached copy whose last {@code seq} equals
 * the store's highest one is the stored transcript, and a copy that is shorter lacks exactly the rows after its last
 * {@code seq}. {@link JdbcTranscriptStore#load} asks the store for that highest {@code seq} (one indexed read) inside
 * the same read transaction and reads only the rows it lacks; a store with fewer rows than the copy (a purge) is read
 * whole. This holds whoever wrote the rows (another node on the same PostgreSQL database, a turn started in the turn
 * store's transaction), so the check is made on every load and no lease is consulted.
 *
 * <p><b>Write-through.</b> An append that committed is added when it continues the copy (its {@code seq} is the next
 * one) and drops the copy otherwise; nothing is added before its commit returned. A copy starts only with a read from
 * the store (the first load of a session after it was created or after a restart), so a row that cannot be read there
 * fails that load as it always did. A copy is also dropped when its
 * session ends (compression, {@code /new}, suspension), and everything is dropped on a purge: the copies would still be
 * right, but nobody reads an ended transcript often.
 *
 * <p><b>Bounds.</b> At most {@link #MAX_SESSIONS} sessions and about {@link #MAX_BYTES} of row text (characters
 * counted twice, plus a fixed cost per row), least recently used first out; a single transcript larger than a quarter
 * of the bytes is not kept (it is read from the store each time, as before). A copy is an immutable snapshot: appending
 * never changes a list already handed out.
 */
public final class HistoryCache {
    /** Sessions kept at most. */
    public static final int MAX_SESSIONS = 1_024;
    /** Estimated bytes of row text kept at most (64 MiB). */
    public static final long MAX_BYTES = 64L * 1024 * 1024;
    private static final int ROW_OVERHEAD = 96;

    private final long maxBytes;
    private final int maxSessions;
    private final Map<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes; // guarded by this

    public HistoryCache() {
        this(MAX_SESSIONS, MAX_BYTES);
    }

    HistoryCache(int maxSessions, long maxBytes) {
        this.maxSessions = maxSessions;
        this.maxBytes = maxBytes;
    }

    /** The cached rows of a session, or null; the caller checks them against the store's highest seq. */
    synchronized Rows get(String sessionId) {
        Entry e = entries.get(sessionId);
        return e == null ? null : e.snapshot();
    }

    /**
     * Rows read from the store: {@code rows} is the whole transcript, or (when {@code known} is not null) what the
     * store holds after {@code known}. Returns the whole transcript as an immutable list.
     */
    synchronized List<TranscriptRow> loaded(String sessionId, Rows known, List<TranscriptRow> rows) {
        Entry current = entries.get(sessionId);
        Entry next = known == null ? new Entry(rows.toArray(TranscriptRow[]::new), rows.size()) : known.extended(rows);
        if (current != null && current.lastSeq() > next.lastSeq()) {
            return next.snapshot(); // a newer copy was written through meanwhile: keep it
        }
        replace(sessionId, current, next);
        return next.snapshot();
    }

    /** A committed append: continues the session's copy, or drops a copy it does not continue. */
    synchronized void appended(String sessionId, TranscriptRow row) {
        Entry current = entries.get(sessionId);
        if (current == null) {
            return; // a copy starts with a read from the store, so that what it holds was readable there
        }
        if (current.lastSeq() + 1 != row.seq()) {
            remove(sessionId);
            return;
        }
        replace(sessionId, current, current.plus(row));
    }

    synchronized void invalidate(String sessionId) {
        remove(sessionId);
    }

    synchronized void clear() {
        entries.clear();
        bytes = 0;
    }

    synchronized int sessions() {
        return entries.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    private void replace(String sessionId, Entry current, Entry next) {
        if (current != null) {
            bytes -= current.bytes;
        }
        if (next.bytes > maxBytes / 4) {
            entries.remove(sessionId);
            return;
        }
        entries.put(sessionId, next);
        bytes += next.bytes;
        Iterator<Map.Entry<String, Entry>> oldest = entries.entrySet().iterator();
        while ((bytes > maxBytes || entries.size() > maxSessions) && oldest.hasNext()) {
            Entry evicted = oldest.next().getValue();
            if (evicted != next) {
                bytes -= evicted.bytes;
                oldest.remove();
            }
        }
    }

    private void remove(String sessionId) {
        Entry e = entries.remove(sessionId);
        if (e != null) {
            bytes -= e.bytes;
        }
    }

    static long sizeOf(TranscriptRow r) {
        long chars = length(r.content()) + length(r.toolCallId()) + length(r.toolName());
        for (var call : r.toolCalls()) {
            chars += length(call.id()) + length(call.name()) + length(call.argumentsJson());
        }
        return ROW_OVERHEAD + 2 * chars;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /**
     * One session's rows: an array filled up to {@code size}, shared by the snapshots of shorter copies (a snapshot
     * never reads past its own size, and a slot is written once, before any snapshot that covers it exists).
     */
    private static final class Entry {
        final TranscriptRow[] rows;
        final int size;
        final long bytes;

        Entry(TranscriptRow[] rows, int size) {
            this(rows, size, sum(rows, size));
        }

        private Entry(TranscriptRow[] rows, int size, long bytes) {
            this.rows = rows;
            this.size = size;
            this.bytes = bytes;
        }

        long lastSeq() {
            return size == 0 ? 0 : rows[size - 1].seq();
        }

        Rows snapshot() {
            return new Rows(rows, size);
        }

        Entry plus(TranscriptRow row) {
            TranscriptRow[] target = rows;
            if (size == rows.length || rows[size] != null) {
                target = Arrays.copyOf(rows, Math.max(16, size + (size >> 1) + 1));
            }
            target[size] = row;
            return new Entry(target, size + 1, bytes + sizeOf(row));
        }

        private static long sum(TranscriptRow[] rows, int size) {
            long total = 0;
            for (int i = 0; i < size; i++) {
                total += sizeOf(rows[i]);
            }
            return total;
        }
    }

    /** An immutable view of a cached transcript. */
    static final class Rows extends AbstractList<TranscriptRow> implements RandomAccess {
        private final TranscriptRow[] rows;
        private final int size;

        Rows(TranscriptRow[] rows, int size) {
            this.rows = rows;
            this.size = size;
        }

        @Override
        public TranscriptRow get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException("row " + index + " of " + size);
            }
            return rows[index];
        }

        @Override
        public int size() {
            return size;
        }

        long lastSeq() {
            return size == 0 ? 0 : rows[size - 1].seq();
        }

        /** These rows followed by {@code more} (the rows after the last one, in order). */
        Entry extended(List<TranscriptRow> more) {
            Entry e = new Entry(rows, size, Entry.sum(rows, size));
            for (TranscriptRow r : more) {
                e = e.plus(r);
            }
            return e;
        }
    }
}
