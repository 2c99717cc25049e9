package dev.herald.app.runtime;

import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingAuthorizer;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.Relay;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The platforms one Herald runs, collected by the wiring with their access rules and home channels, then
 * turned into the gateway's {@link PlatformRegistry} and {@link Authorizer}. Adding a platform to the
 * wiring is one {@link #chat} (or {@link #trusted}) call.
 */
public final class PlatformSet {
    private final List<PlatformAdapter> adapters = new ArrayList<>();
    private final Map<Platform, AccessPolicy> access = new HashMap<>();
    private final List<HomeChannel> homes = new ArrayList<>();
    private final Set<Platform> pairing = new HashSet<>();
    private final List<Relay> relays = new ArrayList<>();

    /** A platform that authenticates its callers itself (the API server's bearer key): whoever it lets in is allowed. */
    public PlatformSet trusted(PlatformAdapter adapter) {
        adapters.add(adapter);
        access.put(adapter.platform(), AccessPolicy.allowAll());
        return this;
    }

    /** A platform whose callers are authenticated by it and then limited to {@code policy} (the API server's users). */
    public PlatformSet restricted(PlatformAdapter adapter, AccessPolicy policy) {
        adapters.add(adapter);
        access.put(adapter.platform(), policy);
        return this;
    }

    /** A chat platform with its configured access keys (allowlist, admins, home channel, unknown DMs). */
    public PlatformSet chat(PlatformAdapter adapter, PlatformAccess config) {
        Platform p = adapter.platform();
        adapters.add(adapter);
        access.put(p, config.toAccessPolicy());
        config.homeChannel().on(p).ifPresent(homes::add);
        if (config.pairsUnknownUsers()) {
            pairing.add(p);
        }
        return this;
    }

    /** Chats whose replies go to a chat on another platform (the webhook routes that deliver there). */
    public PlatformSet relays(List<Relay> relayed) {
        relays.addAll(relayed);
        return this;
    }

    public List<PlatformAdapter> adapters() {
        return List.copyOf(adapters);
    }

    public PlatformRegistry registry() {
        return new PlatformRegistry(adapters, homes, relays);
    }

    /** The configured rules, plus users admitted through DM pairing (read from {@code pairing} at every decision). */
    public Authorizer authorizer(boolean globalAllowAll, Pairing pairingCodes) {
        return new PairingAuthorizer(new Allowlists(access, globalAllowAll), pairingCodes, pairing);
    }
}
