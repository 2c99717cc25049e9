package dev.herald.platforms;

import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayMetrics;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.PlatformRegistry;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.MutableClock;
import dev.herald.testkit.agent.ScriptedAgent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Herald "process" for platform tests: the real gateway on a real SQLite file, one real adapter, the
 * allowlist authorizer and a scripted agent. {@link #crash()} abandons the process as a kill -9 would (the
 * adapter's connection drops, nothing is stopped cleanly) and opens the same database again, as the next
 * process would.
 */
public final class GatewayFixture implements AutoCloseable {
    public static final Duration WAIT = Duration.ofSeconds(10);

    public final MutableClock clock = MutableClock.atNoon();
    public final Set<String> allowedUsers = ConcurrentHashMap.newKeySet();
    public final List<HomeChannel> homes = new ArrayList<>();
    public GatewaySettings settings = GatewaySettings.defaults()
            .withDrainTimeout(Duration.ofMillis(200))
            .withInterruptGrace(Duration.ofSeconds(5))
            .withStartupRestoreTimeout(Duration.ofSeconds(10));
    public ScriptedAgent agent = new ScriptedAgent();
    public Storage storage;
    public Gateway gateway;
    private final Path dir;
    private final List<Storage> opened = new ArrayList<>();
    private PlatformAdapter adapter;

    public GatewayFixture(Path dir, String... allowed) {
        this.dir = dir;
        this.allowedUsers.addAll(List.of(allowed));
        this.storage = open();
    }

    public GatewayFixture home(HomeChannel home) {
        homes.add(home);
        return this;
    }

    /** Builds the gateway around {@code platform} and starts it (the adapter connects inside). */
    public Gateway start(PlatformAdapter platform) {
        this.adapter = platform;
        PlatformRegistry registry = new PlatformRegistry(List.of(platform), homes);
        Allowlists auth = new Allowlists(Map.of(platform.platform(), AccessPolicy.users(Set.copyOf(allowedUsers))), false);
        gateway = new Gateway(storage, agent, auth, registry, settings, clock, GatewayMetrics.NONE);
        gateway.start(Gateway.StartOptions.normal());
        return gateway;
    }

    /** Stops gracefully, as SIGTERM or a restart would: notices, resume marks, adapters closed. */
    public void stop(StopKind kind) {
        gateway.stop(kind, false);
        gateway = null;
    }

    /** Kills the process: the adapter's connections drop, the gateway is abandoned mid-flight, the store reopened. */
    public void crash() {
        if (adapter != null) {
            adapter.close();
        }
        gateway = null;
        storage = open();
        agent = new ScriptedAgent();
    }

    /** A new process after a graceful stop: the store reopened from disk, a fresh agent. */
    public void nextProcess() {
        storage = open();
        agent = new ScriptedAgent();
    }

    /** Every turn the store holds, whatever its state. */
    public List<TurnRecord> turns() {
        // a turn moving on while the states are read shows up twice; states only move forward, in the enum's order
        Map<Long, TurnRecord> all = new java.util.TreeMap<>();
        for (TurnState s : TurnState.values()) {
            storage.turns().inState(s, 10_000).forEach(t -> all.put(t.id(), t));
        }
        return new ArrayList<>(all.values());
    }

    public static ChatTarget target(String chat, String thread) {
        return new ChatTarget(chat, thread);
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
                // the test's own failure matters more
            }
        }
        if (adapter != null) {
            adapter.close();
        }
        for (Storage s : opened) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // a store abandoned by a simulated crash may already be closed
            }
        }
    }
}
