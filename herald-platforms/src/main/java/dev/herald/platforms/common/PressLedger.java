package dev.herald.platforms.common;

import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The last few ids of one kind a platform adapter has dealt with (button presses, answered questions), kept in the
 * store's {@link PlatformState} under one name, so that a redelivered press is recognised on any node and after a
 * restart. A button press is a command, which the gateway answers without storing it, so the gateway's own dedupe
 * never sees it: this ledger is that dedupe. Ids must be {@link PlatformIds} (no spaces); the oldest fall out past
 * {@code capacity}. Writes are serialised in this process; a platform whose presses arrive on one connection (one node
 * at a time) needs no more.
 */
public final class PressLedger {
    private final PlatformState state;
    private final Platform platform;
    private final String name;
    private final int capacity;

    public PressLedger(PlatformState state, Platform platform, String name, int capacity) {
        this.state = state;
        this.platform = platform;
        this.name = name;
        this.capacity = capacity;
    }

    /** Whether {@code id} was noted. */
    public boolean contains(String id) {
        return ids().contains(id);
    }

    /** Notes {@code id} (a store failure is thrown, so the caller can leave the press for redelivery). */
    public synchronized void note(String id) {
        List<String> ids = new ArrayList<>(ids());
        if (ids.contains(id)) {
            return;
        }
        ids.add(id);
        while (ids.size() > capacity) {
            ids.removeFirst();
        }
        state.put(platform, Map.of(name, String.join(" ", ids)));
    }

    private List<String> ids() {
        return state.get(platform, name).filter(v -> !v.isBlank()).map(v -> List.of(v.split(" "))).orElse(List.of());
    }

    /** A state held in memory only, for an adapter built without a store (a tool, a test of something else): nothing survives. */
    public static PlatformState memoryState() {
        Map<String, String> values = new java.util.concurrent.ConcurrentHashMap<>();
        return new PlatformState() {
            @Override
            public java.util.Optional<String> get(Platform platform, String name) {
                return java.util.Optional.ofNullable(values.get(platform.id() + "/" + name));
            }

            @Override
            public Map<String, String> all(Platform platform) {
                Map<String, String> out = new java.util.HashMap<>();
                values.forEach((k, v) -> {
                    if (k.startsWith(platform.id() + "/")) {
                        out.put(k.substring(platform.id().length() + 1), v);
                    }
                });
                return out;
            }

            @Override
            public void put(Platform platform, Map<String, String> changed) {
                changed.forEach((k, v) -> values.put(platform.id() + "/" + k, v));
            }
        };
    }
}
