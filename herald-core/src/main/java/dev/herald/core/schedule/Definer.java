package dev.herald.core.schedule;

import java.util.Locale;

/** Who defined a job: it decides who may change it and whether the configuration replaces it at start. */
public enum Definer {
    /** {@code schedules.jobs} in the configuration: reconciled at every start, the configuration wins. */
    CONFIG,
    /** A chat command ({@code /schedule add}). */
    CHAT,
    /** The agent's {@code schedule} tool, after a person approved it. */
    AGENT;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Definer of(String code) {
        return valueOf(code.strip().toUpperCase(Locale.ROOT));
    }
}
