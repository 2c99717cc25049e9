package dev.herald.core.inbound;

/** The gateway's lifecycle; only the gateway changes it. */
public enum GatewayState {
    STARTING,
    RUNNING,
    DRAINING,
    STOPPED
}
