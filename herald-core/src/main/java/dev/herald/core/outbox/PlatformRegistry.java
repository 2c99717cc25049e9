package dev.herald.core.outbox;

import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The adapters the gateway runs, their connection state as last reported, and their home channels.
 * Adding a platform is registering its adapter here; nothing else in the core names platforms.
 */
public final class PlatformRegistry {
    /** A platform's connection as the gateway last heard it. */
    public record Connection(ConnectionState state, String detail) {
    }

    private final Map<Platform, PlatformAdapter> adapters;
    private final Map<Platform, Connection> connections = new ConcurrentHashMap<>();
    private final Map<Platform, HomeChannel> homes = new ConcurrentHashMap<>();

    public PlatformRegistry(Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homeChannels) {
        Map<Platform, PlatformAdapter> m = new LinkedHashMap<>();
        for (PlatformAdapter a : adapters) {
            if (m.putIfAbsent(a.platform(), a) != null) {
                throw new IllegalArgumentException("two adapters registered for platform " + a.platform());
            }
            connections.put(a.platform(), new Connection(ConnectionState.STOPPED, "not started"));
        }
        this.adapters = java.util.Collections.unmodifiableMap(m);
        for (HomeChannel h : homeChannels) {
            homes.put(h.platform(), h);
        }
    }

    public Optional<PlatformAdapter> adapter(Platform p) {
        return Optional.ofNullable(adapters.get(p));
    }

    public Collection<PlatformAdapter> all() {
        return adapters.values();
    }

    /**
     * Whether a turn of platform {@code p} that has not started when this node stops must never start at all: its reply
     * goes back only over a request this node holds open, nobody reads it later in a chat, and the request is answered
     * 503 "retry" when the adapter closes (the API server). Run anyway, on another node or after the restart, it would
     * reach no one, and the client's retry would run the message a second time.
     */
    public boolean withdrawnAtStop(Platform p) {
        PlatformAdapter a = adapters.get(p);
        return a != null && a.turnsRunWhereReceived() && !a.capabilities().interactive();
    }

    public void setConnection(Platform p, ConnectionState state, String detail) {
        connections.put(p, new Connection(state, detail == null ? "" : detail));
    }

    public Connection connection(Platform p) {
        return connections.getOrDefault(p, new Connection(ConnectionState.STOPPED, "unknown platform"));
    }

    public Map<Platform, Connection> connections() {
        return Map.copyOf(connections);
    }

    public Optional<HomeChannel> home(Platform p) {
        return Optional.ofNullable(homes.get(p));
    }

    public void setHome(HomeChannel home) {
        homes.put(home.platform(), home);
    }

    public List<HomeChannel> homes() {
        List<HomeChannel> out = new ArrayList<>();
        for (Platform p : adapters.keySet()) {
            HomeChannel h = homes.get(p);
            if (h != null) {
                out.add(h);
            }
        }
        return out;
    }
}
