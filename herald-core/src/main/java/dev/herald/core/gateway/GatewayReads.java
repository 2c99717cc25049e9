package dev.herald.core.gateway;

import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionQuery;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptRow;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the admin pages and exports read of a gateway's store, and nothing else: sessions, their transcripts, and turns
 * by state. Writes go through the gateway's admin actions ({@link Gateway#suspend}, {@link Gateway#purge}, ...), so the
 * web module never holds the store itself.
 */
public final class GatewayReads {
    private final Storage storage;

    GatewayReads(Storage storage) {
        this.storage = Objects.requireNonNull(storage, "storage");
    }

    public Optional<SessionEntry> session(SessionKey key) {
        return storage.sessions().find(key);
    }

    /** Stored sessions matching {@code query} (state, platform, text; one page of them). */
    public List<SessionEntry> sessions(SessionQuery query) {
        return storage.sessions().search(query);
    }

    /** How many sessions are stored. */
    public long sessionCount() {
        return storage.sessions().count();
    }

    /** How many sessions wait to be resumed, on every platform. */
    public int resumePendingCount() {
        return storage.sessions().listResumePending(Optional.empty()).size();
    }

    /** At most {@code limit} turns in {@code state}. */
    public List<TurnRecord> turns(TurnState state, int limit) {
        return storage.turns().inState(state, limit);
    }

    /** The transcript a conversation continues in: {@code sessionId}, or the last summary compression started from it. */
    public String transcriptTip(String sessionId) {
        return storage.transcripts().compressionTip(sessionId);
    }

    /** The rows of transcript {@code sessionId}, in order. */
    public List<TranscriptRow> transcript(String sessionId) {
        return storage.transcripts().load(sessionId);
    }

    /** Transcript {@code sessionId}'s header (its parent, when compression started it). */
    public Optional<TranscriptSession> transcriptSession(String sessionId) {
        return storage.transcripts().session(sessionId);
    }

    /** Whether the store still reads while it cannot write (SQLite on a full disk does; an unreachable database does not). */
    public boolean readsWhileUnwritable() {
        return storage.describe().startsWith("sqlite");
    }
}
