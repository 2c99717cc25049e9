package dev.herald.store.contract;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.SessionStore;
import dev.herald.core.session.Storage;
import dev.herald.core.transcript.TranscriptStore;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.continuity.OrphanedTurns;
import dev.herald.core.turn.TurnStore;
import dev.herald.core.turn.Turns;
import dev.herald.testkit.MutableClock;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every contract suite needs: a store under test that can be closed and opened again on the
 * same data, a clock the test moves by hand, and a few sources. A store implementation runs the
 * suites by subclassing them and implementing {@link #open(Path, Clock)}.
 */
public abstract class StorageContract {
    protected static final Platform CHAT = Platform.of("loopback");
    protected static final Platform OTHER = Platform.of("webhook");

    @TempDir
    protected Path dir;
    protected MutableClock clock;
    protected Storage storage;

    /** Opens the store kept in {@code dir}; opening the same directory again must give the same data. */
    protected abstract Storage open(Path dir, Clock clock);

    @BeforeEach
    protected final void openStorage() {
        clock = MutableClock.atNoon();
        storage = open(dir, clock);
    }

    @AfterEach
    protected final void closeStorage() {
        if (storage != null) {
            storage.close();
        }
    }

    /** Closes the store and opens it again: whatever a test reads afterwards came from disk. */
    protected final void reopen() {
        storage.close();
        storage = open(dir, clock);
    }

    protected final SessionStore sessions() {
        return storage.sessions();
    }

    protected final TranscriptStore transcripts() {
        return storage.transcripts();
    }

    /** The store's turns through their one writer, as the gateway uses them. */
    protected final Turns turns() {
        return new Turns(storage.turns());
    }

    /** The store's turn primitives themselves. */
    protected final TurnStore turnStore() {
        return storage.turns();
    }

    /**
     * The start-up sweep after an unclean stop: every RUNNING turn ends as the continuity rules say (spec G2);
     * returns the lanes it marked resume-pending.
     */
    protected final java.util.List<SessionKey> recoverInterrupted(Freshness window) {
        return new OrphanedTurns(turns(), window, clock).end(turns().running(), "start-up sweep").marked();
    }

    protected static SessionSource dm(String chatId) {
        return new SessionSource(CHAT, chatId, ChatType.DM, "u" + chatId, "User " + chatId, null, null);
    }

    protected static SessionSource on(Platform platform, String chatId) {
        return new SessionSource(platform, chatId, ChatType.DM, "u" + chatId, null, null, null);
    }

    protected static SessionKey keyOf(SessionSource source) {
        return SessionKey.of(source);
    }

    /** Creates the lane of a DM chat and returns its entry. */
    protected final SessionEntry lane(String chatId) {
        SessionSource source = dm(chatId);
        return sessions().getOrCreate(keyOf(source), source);
    }
}
