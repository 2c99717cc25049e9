package dev.herald.core.gateway;

/** The gateway's lifecycle; only {@link Gateway} changes it. */
public enum GatewayState {
    STARTING,
    RUNNING,
    DRAINING,
    STOPPED
}
