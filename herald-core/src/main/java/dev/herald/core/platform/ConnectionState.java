package dev.herald.core.platform;

/**
 * An adapter's connection lifecycle, reported by the adapter, owned by the gateway's view of it. STANDBY: the
 * platform's connection must be single and another node holds it; this node still sends its replies.
 */
public enum ConnectionState {
    CONNECTING,
    CONNECTED,
    BACKING_OFF,
    STOPPED,
    STANDBY
}
