package dev.herald.app.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a direct message from someone not allowed to talk to the agent gets. */
public enum UnauthorizedDm {
    /** A one-time pairing code an operator approves with {@code herald pairing approve}. */
    @JsonProperty("pair")
    PAIR,
    /** Nothing; the message is dropped. */
    @JsonProperty("ignore")
    IGNORE
}
