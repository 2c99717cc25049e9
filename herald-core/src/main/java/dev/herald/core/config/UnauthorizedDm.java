package dev.herald.core.config;

/** What a direct message from someone not allowed to talk to the agent gets; written {@code pair} or {@code ignore}. */
public enum UnauthorizedDm {
    /** A one-time pairing code an operator approves with {@code herald pairing approve}. */
    PAIR,
    /** Nothing; the message is dropped. */
    IGNORE
}
