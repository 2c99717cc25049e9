package dev.herald.platforms;

import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingAuthorizer;
import dev.herald.core.auth.PairingStore;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayMetrics;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.PlatformRegistry;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One Herald "process" for platform tests: the real gateway on a real SQLite file, a scripted agent,
 * the real adapter under test (built fresh for every process by {@code adapter}), and the real access
 * rules with DM pairing. {@link #restart()} is a new process on the same database and the same peer.
 */
public final class GatewayHarness implements AutoCloseable {
    public static final Duration WAIT = Duration.ofSeconds(15);

    public final Path dir;
    public final Clock clock = Clock.systemUTC();
    public final PairingStore pairingStore = PairingStore.inMemory();
    public final Pairing pairing = new Pairing(pairingStore, clock);
    private final Supplier<PlatformAdapter> adapter;
    private final Platform platform;
    private final List<Storage> opened = new ArrayList<>();
    private Set<String> allowedUsers = Set.of("u1");
    private final List<HomeChannel> homes = new ArrayList<>();
    public GatewaySettings settings = GatewaySettings.defaults()
            .withDrainTimeout(Duration.ofMillis(300))
            .withInterruptGrace(Duration.ofSeconds(5))
            .withStartupRestoreTimeout(Duration.ofSeconds(10));
    public ScriptedAgent agent = new ScriptedAgent();
    private dev.herald.core.agent.Agent agentOverride;
    public Storage storage;
    public Gateway gateway;
    public PlatformAdapter current;

    public GatewayHarness(Path dir, Platform platform, Supplier<PlatformAdapter> adapter) {
        this.dir = dir;
        this.platform = platform;
        this.adapter = adapter;
        this.storage = open();
    }

    public GatewayHarness allow(String... users) {
        allowedUsers = Set.of(users);
        return this;
    }

    public GatewayHarness home(HomeChannel home) {
        homes.add(home);
        return this;
    }

    /** Runs turns with {@code a} instead of the scripted agent. */
    public GatewayHarness agentOverride(dev.herald.core.agent.Agent a) {
        agentOverride = a;
        return this;
    }

    /** Builds and starts the gateway with a fresh adapter. */
    public GatewayHarness start() {
        current = adapter.get();
        PlatformRegistry registry = new PlatformRegistry(List.of(current), homes);
        Allowlists rules = new Allowlists(Map.of(platform, new AccessPolicy(false, allowedUsers, Set.of("u1"))), false);
        PairingAuthorizer auth = new PairingAuthorizer(rules, pairing, Set.of(platform));
        gateway = new Gateway(storage, agentOverride != null ? agentOverride : agent, auth, registry, settings, clock, GatewayMetrics.NONE);
        gateway.start(Gateway.StartOptions.normal());
        return this;
    }

    /** A graceful stop of this process. */
    public void stop(StopKind kind) {
        gateway.stop(kind, false);
    }

    /** A new process on the same database: store reopened, new agent, new adapter. Stop the old one first. */
    public GatewayHarness restart() {
        storage = open();
        agent = new ScriptedAgent();
        return start();
    }

    /** Turns of this platform in a state, oldest first. */
    public List<TurnRecord> turns(TurnState state) {
        return storage.turns().inState(state, 1000).stream().filter(t -> t.source().platform().equals(platform)).toList();
    }

    private Storage open() {
        Storage s = SqliteStorage.open(dir.resolve("herald.db"), clock);
        opened.add(s);
        return s;
    }

    @Override
    public void close() {
        if (gateway != null) {
            try {
                gateway.stop(StopKind.SHUTDOWN, false);
            } catch (RuntimeException ignored) {
                // already stopped
            }
        }
        for (Storage s : opened) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // a store abandoned by a restart may already be closed
            }
        }
    }
}
