package dev.herald.core.cluster;

import java.util.Locale;

/**
 * Where a node (one gateway process) is in its life, as the node registry records it. RUNNING takes new work;
 * DRAINING finishes what it runs and takes nothing new (a restart hands its work over); GONE is final: the node
 * stopped, or another node judged it dead (its lease expired by the database's clock, or its process is gone) and
 * took its work. A GONE node never writes again: every write it makes is fenced by its registry row.
 */
public enum NodeState {
    RUNNING,
    DRAINING,
    GONE;

    /** The name shown and stored: {@code running}, {@code draining}, {@code gone}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads {@link #code()}. */
    public static NodeState of(String code) {
        return valueOf(code.toUpperCase(Locale.ROOT));
    }

    public boolean live() {
        return this != GONE;
    }
}
