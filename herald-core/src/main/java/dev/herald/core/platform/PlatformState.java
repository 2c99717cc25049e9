package dev.herald.core.platform;

import java.util.Map;
import java.util.Optional;

/**
 * A platform's own transport state, kept in the store so that every node of a cluster reads the same values: where a
 * poll continues (a cursor the platform does not keep for us) and what a reply must echo (Weixin's per-chat
 * {@code context_token}). Names are the adapter's; values are text. Each call is one short transaction.
 */
public interface PlatformState {

    /** The value of {@code name} for {@code platform}, if stored. */
    Optional<String> get(Platform platform, String name);

    /** Every value stored for {@code platform}. */
    Map<String, String> all(Platform platform);

    /** Stores (or replaces) these values for {@code platform}, together. */
    void put(Platform platform, Map<String, String> values);
}
