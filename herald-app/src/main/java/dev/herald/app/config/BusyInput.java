package dev.herald.app.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a message does when its session is already running a turn. */
public enum BusyInput {
    /** Wait behind the running turn and run next. */
    @JsonProperty("queue")
    QUEUE,
    /** Interrupt the running turn and run now. */
    @JsonProperty("interrupt")
    INTERRUPT,
    /** Join the running turn: the model reads the message before its next call (as {@code /steer} does). */
    @JsonProperty("steer")
    STEER;

    /** The gateway's busy policy of this name. */
    public dev.herald.core.lanes.BusyPolicy policy() {
        return dev.herald.core.lanes.BusyPolicy.valueOf(name());
    }
}
