package dev.herald.spec;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayMetrics;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.PlatformRegistry;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Herald "process" for spec tests: the real gateway on a real SQLite file, loopback platforms
 * standing in for chat platforms, and a scripted agent. {@link #restart()} simulates a new process on
 * the same database: the gateway and adapters are rebuilt, the store is reopened from disk.
 */
final class Harness implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);

    final Path dir;
    final MutableClock clock;
    final Set<String> allowedUsers = ConcurrentHashMap.newKeySet();
    final Set<String> adminUsers = ConcurrentHashMap.newKeySet();
    final Map<String, Boolean> interactive = new LinkedHashMap<>();
    final Map<String, HomeChannel> homes = new LinkedHashMap<>();
    final Set<String> startDisconnected = ConcurrentHashMap.newKeySet();
    final Map<String, LoopbackPlatform> platforms = new LinkedHashMap<>();
    GatewaySettings settings = GatewaySettings.defaults()
            .withDrainTimeout(Duration.ofMillis(200))
            .withInterruptGrace(Duration.ofSeconds(5))
            .withStartupRestoreTimeout(Duration.ofSeconds(10))
            // gateways abandoned by simulated crashes keep their threads; keep their background retry and watchdog quiet
            .withRedeliveryInterval(Duration.ofHours(1))
            .withWatchdog(Duration.ofHours(1), Duration.ofMinutes(1));
    ScriptedAgent agent = new ScriptedAgent();
    Agent agentOverride;
    GatewayMetrics metrics = GatewayMetrics.NONE;
    Storage storage;
    Gateway gateway;
    private final List<Storage> opened = new ArrayList<>();

    Harness(Path dir) {
        this.dir = dir;
        this.clock = MutableClock.atNoon();
        this.allowedUsers.add("u1");
        this.storage = open();
    }

    Harness platform(String id, boolean isInteractive) {
        interactive.put(id, isInteractive);
        return this;
    }

    Harness home(String platformId, String chatId, String threadId) {
        Platform p = Platform.of(platformId);
        homes.put(platformId, new HomeChannel(p, new dev.herald.core.platform.ChatTarget(chatId, threadId), "Home"));
        return this;
    }

    Harness freshness(Duration window) {
        settings = settings.withFreshness(new Freshness(window));
        return this;
    }

    /** Builds the gateway and its adapters (does not start it). */
    Gateway build() {
        platforms.clear();
        for (var e : interactive.entrySet()) {
            Capabilities caps = new Capabilities(e.getValue(), false, false, true, false, 4096);
            LoopbackPlatform lp = new LoopbackPlatform(Platform.of(e.getKey()), caps, clock);
            if (startDisconnected.contains(e.getKey())) {
                lp.startDisconnected();
            }
            platforms.put(e.getKey(), lp);
        }
        PlatformRegistry registry = new PlatformRegistry(platforms.values(), homes.values());
        Authorizer auth = new Authorizer() {
            @Override
            public boolean isAuthorized(SessionSource source) {
                return source.userId() != null && allowedUsers.contains(source.userId());
            }

            @Override
            public boolean isAdmin(SessionSource source) {
                return adminUsers.isEmpty() ? isAuthorized(source) : adminUsers.contains(source.userId());
            }
        };
        gateway = new Gateway(storage, agentOverride != null ? agentOverride : agent, auth, registry, settings, clock, metrics);
        return gateway;
    }

    Gateway.StartReport start() {
        if (gateway == null) {
            build();
        }
        return gateway.start(Gateway.StartOptions.normal());
    }

    /** Starts on another thread (start blocks while start-up restore runs). */
    CompletableFuture<Gateway.StartReport> startAsync() {
        if (gateway == null) {
            build();
        }
        return CompletableFuture.supplyAsync(() -> gateway.start(Gateway.StartOptions.normal()),
                r -> Thread.ofVirtual().start(r));
    }

    /**
     * A new process on the same database: the old gateway is abandoned as it is (call its stop first
     * for a graceful restart; do not, to simulate a crash), the store is reopened from disk.
     */
    Harness restart() {
        storage = open();
        agent = new ScriptedAgent();
        gateway = null;
        build();
        return this;
    }

    LoopbackPlatform loopback(String id) {
        return platforms.get(id);
    }

    static SessionSource dm(String platform, String chatId, String user) {
        return new SessionSource(Platform.of(platform), chatId, ChatType.DM, user, null, null, null);
    }

    static SessionSource group(String platform, String chatId, String user, String thread) {
        return new SessionSource(Platform.of(platform), chatId, ChatType.GROUP, user, null, thread, null);
    }

    SessionKey key(SessionSource s) {
        return SessionKey.of(s, settings.keyPolicy());
    }

    SessionEntry entry(SessionSource s) {
        return storage.sessions().find(key(s)).orElseThrow(() -> new AssertionError("no session for " + key(s)));
    }

    private Storage open() {
        Storage s = SqliteStorage.open(dir.resolve("herald.db"), clock);
        opened.add(s);
        return s;
    }

    /**
     * Invariants that hold after every gateway test: no turn is RUNNING without a running owner in the
     * current gateway, every transcript's sequence is dense from 1, and no inbound event got two replies.
     */
    void checkInvariants() {
        if (gateway == null || gateway.status().startedAt() == null) {
            return;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        java.util.List<Long> orphans;
        do {
            java.util.Set<Long> owned = new java.util.HashSet<>();
            gateway.activeTurns().forEach(t -> owned.add(t.turnId()));
            orphans = storage.turns().inState(dev.herald.core.turn.TurnState.RUNNING, 1000).stream()
                    .map(dev.herald.core.turn.TurnRecord::id).filter(id -> !owned.contains(id)).toList();
        } while (!orphans.isEmpty() && System.nanoTime() < deadline);
        if (!orphans.isEmpty()) {
            throw new AssertionError("invariant: turns RUNNING without an owner: " + orphans);
        }
        java.util.Set<String> sessionIds = new java.util.HashSet<>();
        for (dev.herald.core.turn.TurnState st : dev.herald.core.turn.TurnState.values()) {
            storage.turns().inState(st, 100_000).forEach(t -> {
                if (t.sessionId() != null) {
                    sessionIds.add(t.sessionId());
                }
            });
        }
        for (String id : sessionIds) {
            var rows = storage.transcripts().load(id);
            for (int i = 0; i < rows.size(); i++) {
                if (rows.get(i).seq() != i + 1) {
                    throw new AssertionError("invariant: transcript " + id + " has seq " + rows.get(i).seq() + " at position " + (i + 1));
                }
            }
        }
        for (LoopbackPlatform lp : platforms.values()) {
            java.util.Map<String, Long> replies = lp.sent().stream()
                    .filter(x -> x.message().kind() == dev.herald.core.platform.MessageKind.REPLY && x.message().correlationId() != null
                            && x.message().isLastPart())
                    .collect(java.util.stream.Collectors.groupingBy(x -> x.message().correlationId(), java.util.stream.Collectors.counting()));
            replies.forEach((event, n) -> {
                if (n > 1) {
                    throw new AssertionError("invariant: event " + event + " was answered " + n + " times on " + lp.platform());
                }
            });
        }
    }

    @Override
    public void close() {
        try {
            checkInvariants();
        } finally {
            for (Storage s : opened) {
                try {
                    s.close();
                } catch (RuntimeException ignored) {
                    // a store abandoned by a simulated crash may already be closed
                }
            }
        }
    }
}
