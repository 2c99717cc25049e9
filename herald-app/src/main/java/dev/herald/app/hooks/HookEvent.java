package dev.herald.app.hooks;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** A lifecycle event a hook may run on; {@link #wire()} is its name in {@code hooks[].events} and in the payload. */
public enum HookEvent {
    SESSION_STARTED("session.started"),
    TURN_COMPLETED("turn.completed"),
    TURN_FAILED("turn.failed"),
    APPROVAL_REQUESTED("approval.requested"),
    GATEWAY_STARTED("gateway.started"),
    GATEWAY_STOPPING("gateway.stopping");

    private final String wire;

    HookEvent(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The event named {@code name} (as written in the configuration), if there is one. */
    public static Optional<HookEvent> named(String name) {
        return Arrays.stream(values()).filter(e -> e.wire.equals(name == null ? null : name.trim().toLowerCase(Locale.ROOT))).findFirst();
    }

    /** Every name, for error messages. */
    public static String names() {
        return String.join(", ", Arrays.stream(values()).map(HookEvent::wire).toList());
    }
}
