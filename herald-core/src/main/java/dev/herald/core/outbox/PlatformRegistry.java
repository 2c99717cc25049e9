package dev.herald.core.outbox;

import dev.herald.core.platform.BackgroundChats;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.Destination;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.Relay;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The adapters the gateway runs, their connection state as last reported, their home channels, and the chats whose
 * replies are relayed to another platform. Adding a platform is registering its adapter here; nothing else in the
 * core names platforms.
 */
public final class PlatformRegistry {
    /** A platform's connection as the gateway last heard it. */
    public record Connection(ConnectionState state, String detail) {
    }

    private final Map<Platform, PlatformAdapter> adapters;
    private final Map<Platform, Connection> connections = new ConcurrentHashMap<>();
    private final Map<Platform, HomeChannel> homes = new ConcurrentHashMap<>();
    private final Map<Platform, Map<String, Destination>> relays;

    public PlatformRegistry(Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homeChannels) {
        this(adapters, homeChannels, List.of());
    }

    /** The adapters, their home channels, and the chats whose replies go to a chat on another platform. */
    public PlatformRegistry(Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homeChannels,
            Collection<Relay> relayed) {
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
        Map<Platform, Map<String, Destination>> r = new LinkedHashMap<>();
        for (Relay relay : relayed) {
            r.computeIfAbsent(relay.from(), p -> new LinkedHashMap<>()).put(relay.chatId(), relay.to());
        }
        this.relays = java.util.Collections.unmodifiableMap(r);
    }

    /**
     * Where the replies of {@code platform}'s chat {@code chat} really go, when that platform only relays them to a chat
     * on another platform ({@link Relay}); empty when they go to the platform itself.
     */
    public Optional<Destination> relayOf(Platform platform, ChatTarget chat) {
        if (relaysAll(platform)) {
            return BackgroundChats.destination(chat);
        }
        return Optional.ofNullable(relays.getOrDefault(platform, Map.of()).get(chat.chatId()));
    }

    /**
     * Whether every message of {@code platform}'s chats goes where {@link #relayOf} says, notices and command answers too
     * (the chats of background tasks, whose only reader is the chat that asked).
     */
    public boolean relaysAll(Platform platform) {
        return BackgroundChats.PLATFORM.equals(platform);
    }

    /** The line put before a message relayed from {@code chat} of {@code platform}; empty for none. */
    public String headingOf(Platform platform, ChatTarget chat) {
        return relaysAll(platform) ? BackgroundChats.heading(chat) : "";
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
        return a != null && a.capabilities().delivery().turnsRunWhereReceived() && !a.capabilities().interactive();
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
