package dev.herald.core.session;

/** Why a lookup replaced a session with a fresh one (recorded as the entry's {@code auto_reset_reason}). */
public enum ResetReason {
    /** The session was suspended (/stop, stuck-loop escalation); suspended beats resume-pending. */
    SUSPENDED("suspended");

    private final String code;

    ResetReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    public static ResetReason fromCode(String code) {
        for (ResetReason r : values()) {
            if (r.code.equals(code)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown reset reason '" + code + "'");
    }
}
