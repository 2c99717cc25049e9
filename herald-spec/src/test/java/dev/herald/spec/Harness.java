package dev.herald.spec;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.continuity.Freshness;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayBuilder;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.gateway.Invariant;
import dev.herald.testkit.gateway.StorageFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Herald "process" for spec tests: the real gateway on a real SQLite file, loopback platforms
 * standing in for chat platforms, and a scripted agent, built by the testkit's {@link GatewayHarness} (which
 * checks the store invariants when this closes). {@link #restart()} simulates a new process on the same
 * database: the gateway and adapters are rebuilt, the store is reopened from disk.
 */
final class Harness implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);
    /** The default store of the spec tests: a SQLite file in the test's folder. */
    static final StorageFactory SQLITE = (home, clock) -> SqliteStorage.open(home.resolve("herald.db"), clock);

    final Path dir;
    final MutableClock clock;
    final GatewayHarness kit;
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
    /** Message ids of the loopback platforms, unique across processes like a real platform's (a test's onSend replaces them). */
    private final AtomicLong messageIds = new AtomicLong();

    Harness(Path dir) {
        this(dir, SQLITE);
    }

    /** A harness whose processes open their store with {@code stores} (the embedded PostgreSQL, for one). */
    Harness(Path dir, StorageFactory stores) {
        this.dir = dir;
        this.clock = MutableClock.atNoon();
        this.allowedUsers.add("u1");
        this.kit = GatewayHarness.on(stores, clock).open(dir);
        this.storage = kit.storage();
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

    /** Skips one store invariant for this test, whose scenario breaks it on purpose ({@code reason} says how). */
    Harness skipCheck(Invariant check, String reason) {
        kit.skipCheck(check, reason);
        return this;
    }

    private java.util.function.UnaryOperator<GatewayBuilder> builderSteps = b -> b;

    /**
     * Sets {@code more} on the gateway's builder too (chat commands, hooks) whenever the gateway is built from now on, in
     * place of what an earlier call set.
     */
    Harness with(java.util.function.UnaryOperator<GatewayBuilder> more) {
        builderSteps = more;
        return this;
    }

    /** Builds the gateway and its adapters (does not start it). */
    Gateway build() {
        platforms.clear();
        for (var e : interactive.entrySet()) {
            Capabilities caps = new Capabilities(e.getValue(), false, false, true, false, 4096);
            LoopbackPlatform lp = new LoopbackPlatform(Platform.of(e.getKey()), caps, clock);
            lp.onSend(m -> SendResult.sent(Long.toString(messageIds.incrementAndGet())));
            if (startDisconnected.contains(e.getKey())) {
                lp.startDisconnected();
            }
            platforms.put(e.getKey(), lp);
        }
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
        gateway = kit.gateway(agentOverride != null ? agentOverride : agent, auth, platforms.values(), homes.values(), settings, metrics, builderSteps);
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
        kit.nextProcess();
        storage = kit.storage();
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

    /** Checks the store invariants (the running gateway is stopped first) and closes the stores. */
    @Override
    public void close() {
        kit.close();
    }
}
