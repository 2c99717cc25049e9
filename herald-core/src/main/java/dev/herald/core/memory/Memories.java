package dev.herald.core.memory;

import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Long-term memory: the facts each user asked the agent to remember, kept per owner across sessions and chats. Every
 * call names the owner, and no call reads or changes another owner's rows: that argument is the whole isolation, so
 * callers take it from the turn's or command's sender, never from the model or the message text.
 *
 * <p>Lists are newest first (by id, which grows with each row).
 */
public interface Memories {
    /** The longest fact kept, in characters. */
    int MAX_TEXT = 500;
    /** The longest owner key kept. */
    int MAX_OWNER = 300;

    /** Stores {@code text} for {@code owner} as active or pending; returns the stored row. */
    Memory add(String owner, String text, String source, Memory.Status status, Instant at);

    /** The owner's memories, newest first, at most {@code limit}; pending ones only when {@code withPending}. */
    List<Memory> list(String owner, boolean withPending, int limit);

    /** How many memories the owner has, pending ones included. */
    int count(String owner);

    /** Removes the owner's memory {@code id}; false when the owner has none with that id. */
    boolean forget(String owner, long id);

    /** Makes the owner's pending memory {@code id} active; false when the owner has no pending one with that id. */
    boolean approve(String owner, long id);

    /** Removes every memory of the owner; returns how many there were. */
    int purge(String owner);

    /**
     * Gives every memory of {@code from} to {@code to}; returns how many there were. The store does it in one write; this
     * default (for views over a store) copies them, keeping text, source and status, then purges {@code from}.
     */
    default int reassign(String from, String to) {
        List<Memory> theirs = list(from, true, Integer.MAX_VALUE);
        for (Memory m : theirs) {
            add(to, m.text(), m.source(), m.status(), m.createdAt());
        }
        purge(from);
        return theirs.size();
    }

    /**
     * The owner key of the person who wrote from {@code source}: {@code <platform>:<user id>}; null when the user is unknown.
     * A background task's turn ({@code /bg}) is its asker's: the platform of the chat that asked, not {@code background}.
     */
    static String ownerOf(SessionSource source) {
        if (source == null || source.userId() == null) {
            return null;
        }
        Platform platform = source.platform();
        if (platform.equals(BackgroundChats.PLATFORM)) {
            platform = BackgroundChats.destination(source.target()).map(d -> d.platform()).orElse(platform);
        }
        return platform.id() + ":" + source.userId();
    }

    /** Refuses an owner key or fact no store keeps; returns the fact as stored (one line, stripped). */
    static String check(String owner, String text) {
        if (owner == null || owner.isBlank() || owner.length() > MAX_OWNER) {
            throw new IllegalArgumentException("memory - an owner is 1 to " + MAX_OWNER + " characters");
        }
        String t = text == null ? "" : text.replaceAll("\\s+", " ").strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("memory - the fact to remember is empty");
        }
        if (t.length() > MAX_TEXT) {
            throw new IllegalArgumentException("memory - a fact is at most " + MAX_TEXT + " characters, this one has " + t.length()
                    + "; say it shorter");
        }
        return t;
    }

    /** Memories in memory only (tests, and stores without the table). */
    static Memories inMemory() {
        Map<Long, Memory> rows = new ConcurrentHashMap<>();
        AtomicLong ids = new AtomicLong();
        return new Memories() {
            @Override
            public Memory add(String owner, String text, String source, Memory.Status status, Instant at) {
                Memory m = new Memory(ids.incrementAndGet(), owner, check(owner, text), at, source, status);
                rows.put(m.id(), m);
                return m;
            }

            @Override
            public List<Memory> list(String owner, boolean withPending, int limit) {
                List<Memory> out = new ArrayList<>(rows.values().stream().filter(m -> m.owner().equals(owner))
                        .filter(m -> withPending || !m.pending()).sorted(Comparator.comparingLong(Memory::id).reversed()).toList());
                return out.subList(0, Math.min(Math.max(0, limit), out.size()));
            }

            @Override
            public int count(String owner) {
                return (int) rows.values().stream().filter(m -> m.owner().equals(owner)).count();
            }

            @Override
            public boolean forget(String owner, long id) {
                Memory m = rows.get(id);
                return m != null && m.owner().equals(owner) && rows.remove(id, m);
            }

            @Override
            public boolean approve(String owner, long id) {
                Memory m = rows.get(id);
                return m != null && m.owner().equals(owner) && m.pending()
                        && rows.replace(id, m, new Memory(id, owner, m.text(), m.createdAt(), m.source(), Memory.Status.ACTIVE));
            }

            @Override
            public int purge(String owner) {
                int n = count(owner);
                rows.values().removeIf(m -> m.owner().equals(owner));
                return n;
            }

            @Override
            public synchronized int reassign(String from, String to) {
                int n = 0;
                for (Memory m : List.copyOf(rows.values())) {
                    if (m.owner().equals(from)) {
                        rows.put(m.id(), new Memory(m.id(), to, m.text(), m.createdAt(), m.source(), m.status()));
                        n++;
                    }
                }
                return n;
            }
        };
    }
}
