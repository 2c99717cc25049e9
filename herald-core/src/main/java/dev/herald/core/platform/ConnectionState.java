package dev.herald.core.platform;

/** An adapter's connection lifecycle, reported by the adapter, owned by the gateway's view of it. */
public enum ConnectionState {
    CONNECTING,
    CONNECTED,
    BACKING_OFF,
    STOPPED
}
