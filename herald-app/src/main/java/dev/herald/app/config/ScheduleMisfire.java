package dev.herald.app.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a configured job does about occurrences missed while Herald was down. */
public enum ScheduleMisfire {
    /** One catch-up run for everything missed, within the catch-up window. */
    @JsonProperty("run_once")
    RUN_ONCE,
    /** No catch-up: wait for the next time. */
    @JsonProperty("skip")
    SKIP
}
