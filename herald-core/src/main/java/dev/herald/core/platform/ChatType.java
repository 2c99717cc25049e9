package dev.herald.core.platform;

import java.util.Locale;

/** The kind of conversation a message came from; its wire form appears in session keys. */
public enum ChatType {
    DM("dm"),
    GROUP("group"),
    CHANNEL("channel"),
    THREAD("thread");

    private final String wire;

    ChatType(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** Parses the wire form ({@code dm}, {@code group}, ...); unknown text is an error naming it. */
    public static ChatType fromWire(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (ChatType c : values()) {
            if (c.wire.equals(t)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown chat type '" + text + "' (expected dm, group, channel or thread)");
    }

    public boolean isDirect() {
        return this == DM;
    }
}
