package dev.herald.core.transcript;

import java.util.Locale;

/** The role of a transcript row. {@code session_meta} and {@code system} rows are bookkeeping the model never sees. */
public enum Role {
    USER("user"),
    ASSISTANT("assistant"),
    TOOL("tool"),
    SYSTEM("system"),
    SESSION_META("session_meta");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** True for rows kept out of agent history and freshness checks. */
    public boolean isBookkeeping() {
        return this == SYSTEM || this == SESSION_META;
    }

    public static Role fromWire(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (Role r : values()) {
            if (r.wire.equals(t)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown transcript role '" + text + "'");
    }
}
