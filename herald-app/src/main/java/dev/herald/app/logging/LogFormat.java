package dev.herald.app.logging;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How log lines are written. */
public enum LogFormat {
    /** {@code 2026-12-02 20:56:10.123 INFO  gateway - <message>}: for people. */
    @JsonProperty("text")
    TEXT,
    /** One JSON object per line (timestamp, level, component, message, session key, turn id): for log shippers. */
    @JsonProperty("json")
    JSON
}
