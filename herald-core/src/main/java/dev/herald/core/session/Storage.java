package dev.herald.core.session;

import dev.herald.core.transcript.TranscriptStore;
import dev.herald.core.turn.TurnStore;

/**
 * One durable store: the session index, the transcripts and the turns, in one database so that the
 * operations that must be atomic across them (admitting a turn with its user message, the start-up
 * sweep) can be. Opened at start-up, closed at stop.
 */
public interface Storage extends AutoCloseable {

    SessionStore sessions();

    TranscriptStore transcripts();

    TurnStore turns();

    /** The node registry: which gateway processes share this store and which of them are alive. */
    dev.herald.core.cluster.NodeStore nodes();

    /** Platforms' transport state (cursors, reply tokens), shared by the nodes of a cluster. */
    dev.herald.core.platform.PlatformState platformState();
    /** Scheduled jobs and their occurrences. */
    dev.herald.core.schedule.ScheduleStore schedules();

    /**
     * The model profile each lane chose ({@code /model}). Stores without the table keep the choices in memory, per
     * store instance.
     */
    default ModelChoiceStore modelChoices() {
        return InMemoryChoices.of(this);
    }

    /**
     * What each chat chose for itself with a command ({@code /voice}, ...). Stores without the table keep them in memory,
     * per store instance.
     */
    default ChatPreferences chatPreferences() {
        return InMemoryChoices.preferencesOf(this);
    }

    /** The web accounts and their API keys. Stores without the tables keep them in memory, per store instance. */
    default dev.herald.core.account.Accounts accounts() {
        return InMemoryChoices.accountsOf(this);
    }

    /** The users' long-term memories. Stores without the table keep them in memory, per store instance. */
    default dev.herald.core.memory.Memories memories() {
        return InMemoryChoices.memoriesOf(this);
    }

    /** Chat identities linked to web accounts. Stores without the tables keep them in memory, per store instance. */
    default dev.herald.core.account.IdentityLinks identityLinks() {
        return InMemoryChoices.linksOf(this);
    }

    /**
     * Whether the store can write now, as its calls found out (a full disk, an unreachable database); a store that never
     * finds out is always writable.
     */
    default StoreHealth health() {
        return StoreHealth.WRITABLE;
    }

    /** A short description for logs: the kind and where it lives (never credentials). */
    String describe();

    @Override
    void close();

    /** One in-memory choice store per store instance without a table of its own. */
    final class InMemoryChoices {
        private static final java.util.Map<Storage, ModelChoiceStore> BY_STORE =
                java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

        private InMemoryChoices() {
        }

        private static final java.util.Map<Storage, ChatPreferences> PREFERENCES =
                java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

        static ModelChoiceStore of(Storage storage) {
            return BY_STORE.computeIfAbsent(storage, s -> ModelChoiceStore.inMemory());
        }

        private static final java.util.Map<Storage, dev.herald.core.account.Accounts> ACCOUNTS =
                java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

        private static final java.util.Map<Storage, dev.herald.core.memory.Memories> MEMORIES =
                java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

        static dev.herald.core.memory.Memories memoriesOf(Storage storage) {
            return MEMORIES.computeIfAbsent(storage, s -> dev.herald.core.memory.Memories.inMemory());
        }

        static dev.herald.core.account.Accounts accountsOf(Storage storage) {
            return ACCOUNTS.computeIfAbsent(storage, s -> dev.herald.core.account.Accounts.inMemory());
        }

        private static final java.util.Map<Storage, dev.herald.core.account.IdentityLinks> LINKS =
                java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

        static dev.herald.core.account.IdentityLinks linksOf(Storage storage) {
            return LINKS.computeIfAbsent(storage, s -> dev.herald.core.account.IdentityLinks.inMemory());
        }

        static ChatPreferences preferencesOf(Storage storage) {
            return PREFERENCES.computeIfAbsent(storage, s -> ChatPreferences.inMemory());
        }
    }
}
