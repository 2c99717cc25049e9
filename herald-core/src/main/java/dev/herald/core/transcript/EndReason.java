package dev.herald.core.transcript;

/** Why a transcript session ended. */
public enum EndReason {
    /** The user asked for a fresh session (/new, /reset). */
    SESSION_RESET("session_reset"),
    /** The context was summarized into a child session, which continues the conversation. */
    COMPRESSION("compression"),
    /** The lane was suspended and its next message started a fresh session. */
    SUSPENDED("suspended");

    private final String code;

    EndReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    public static EndReason fromCode(String code) {
        for (EndReason r : values()) {
            if (r.code.equals(code)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown end reason '" + code + "'");
    }
}
