package dev.herald.app.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a message does when its session is already running a turn. */
public enum BusyInput {
    /** Wait behind the running turn and run next. */
    @JsonProperty("queue")
    QUEUE,
    /** Interrupt the running turn and run now. */
    @JsonProperty("interrupt")
    INTERRUPT
}
