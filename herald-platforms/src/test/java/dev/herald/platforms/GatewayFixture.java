package dev.herald.platforms;

import static org.awaitility.Awaitility.await;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.auth.Pairing;
import dev.herald.core.auth.PairingAuthorizer;
import dev.herald.core.auth.PairingStore;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayBuilder;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.testkit.agent.ScriptedAgent;
import dev.herald.testkit.gateway.GatewayHarness;
import dev.herald.testkit.gateway.Invariant;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Herald "process" for platform tests: the real gateway on a real SQLite file, a scripted agent, the
 * real adapter under test (built fresh for every process by {@code adapters}), the real allowlist and,
 * when asked, DM pairing; built by the testkit's {@link GatewayHarness}, which checks the store invariants
 * after each test. Register it as a JUnit extension ({@code @RegisterExtension}): before each test it opens a
 * store in a new temporary folder; after it, it checks the invariants, stops what runs, closes the stores and
 * the peers it was given ({@link #closing}), and deletes the folder.
 *
 * <p>Processes: {@link #start} runs one (and waits until {@link #readyWhen} holds); {@link #stop} ends it
 * gracefully; {@link #crash} abandons it as a kill -9 would (the adapter's connection drops, nothing is
 * stopped cleanly); {@link #nextProcess} reopens the same database with a fresh agent for the next
 * {@code start}, and {@link #restart} does both.
 */
public final class GatewayFixture implements BeforeEachCallback, AfterEachCallback {
    public static final Duration WAIT = Duration.ofSeconds(15);

    public final Clock clock = Clock.systemUTC();
    public final Pairing pairing = new Pairing(PairingStore.inMemory(), clock);
    public GatewaySettings settings = GatewaySettings.defaults()
            .withDrainTimeout(Duration.ofMillis(300))
            .withInterruptGrace(Duration.ofSeconds(5))
            .withStartupRestoreTimeout(Duration.ofSeconds(10));
    public ScriptedAgent agent = new ScriptedAgent();
    public Storage storage;
    public Gateway gateway;
    /** The adapter of the process that runs (or ran last). */
    public PlatformAdapter current;

    private final GatewayHarness kit = GatewayHarness.on((home, c) -> SqliteStorage.open(home.resolve("herald.db"), c), clock);
    private final Function<Clock, PlatformAdapter> adapters;
    private final List<HomeChannel> homes = new ArrayList<>();
    private final List<AutoCloseable> peers = new ArrayList<>();
    private Set<String> allowedUsers = Set.of();
    private Set<String> admins = Set.of();
    private boolean pairingOn;
    private Callable<Boolean> ready = () -> true;
    private Agent agentOverride;

    /** @param adapters builds the adapter under test for each process, on the fixture's clock */
    public GatewayFixture(Function<Clock, PlatformAdapter> adapters) {
        this.adapters = adapters;
    }

    /** The platform user ids the allowlist lets in. */
    public GatewayFixture allow(String... users) {
        allowedUsers = Set.of(users);
        return this;
    }

    /** The platform user ids that are admins (allowed too, and may run every command). */
    public GatewayFixture admins(String... users) {
        admins = Set.of(users);
        return this;
    }

    /** Unknown users in direct messages get a pairing code, as on platforms with DM pairing. */
    public GatewayFixture withPairing() {
        pairingOn = true;
        return this;
    }

    /** {@link #start} returns once {@code condition} holds (for example: the fake saw the adapter connect). */
    public GatewayFixture readyWhen(Callable<Boolean> condition) {
        ready = condition;
        return this;
    }

    /** Closes {@code peer} (a fake platform) after the gateway and the stores, at the end of the test. */
    public GatewayFixture closing(AutoCloseable peer) {
        peers.add(peer);
        return this;
    }

    public GatewayFixture home(HomeChannel home) {
        homes.add(home);
        return this;
    }

    /** Runs turns with {@code a} instead of the scripted agent. */
    public GatewayFixture agentOverride(Agent a) {
        agentOverride = a;
        return this;
    }

    /** Skips one store invariant for this test, whose scenario breaks it on purpose ({@code reason} says how). */
    public GatewayFixture skipCheck(Invariant check, String reason) {
        kit.skipCheck(check, reason);
        return this;
    }

    private java.util.function.UnaryOperator<GatewayBuilder> builderSteps = b -> b;

    /**
     * Sets {@code more} on the gateway's builder too (chat commands, hooks) whenever the gateway is built from now on, in
     * place of what an earlier call set.
     */
    public GatewayFixture with(java.util.function.UnaryOperator<GatewayBuilder> more) {
        builderSteps = more;
        return this;
    }

    /** Builds and starts the gateway with a fresh adapter (which connects inside); returns once ready. */
    public GatewayFixture start() {
        current = adapters.apply(clock);
        Platform platform = current.platform();
        Allowlists rules = new Allowlists(Map.of(platform, new AccessPolicy(false, allowedUsers, admins)), false);
        PairingAuthorizer auth = new PairingAuthorizer(rules, pairing, pairingOn ? Set.of(platform) : Set.of());
        gateway = kit.gateway(agentOverride != null ? agentOverride : agent, auth, List.of(current), homes, settings, GatewayMetrics.NONE, builderSteps);
        gateway.start(Gateway.StartOptions.normal());
        await().atMost(WAIT).until(ready);
        return this;
    }

    /** Stops gracefully, as SIGTERM or a restart would: notices, resume marks, adapters closed. */
    public void stop(StopKind kind) {
        gateway.stop(kind, false);
        gateway = null;
    }

    /** Kills the process: the adapter's connections drop, the gateway is abandoned mid-flight, the store reopened. */
    public void crash() {
        if (current != null) {
            current.close();
        }
        gateway = null;
        nextProcess();
    }

    /** A new process after a stop or crash: the store reopened from disk, a fresh agent; not started yet. */
    public void nextProcess() {
        kit.nextProcess();
        storage = kit.storage();
        agent = new ScriptedAgent();
    }

    /** A new process on the same database, started: {@link #nextProcess} then {@link #start}. Stop the old one first. */
    public GatewayFixture restart() {
        nextProcess();
        return start();
    }

    /**
     * The disk holding the store is full from now on (a real SQLITE_FULL, {@code FullDisk}), and the store has found out:
     * a write that needs new pages was tried (it waits on in the background until {@link #freeDisk}).
     */
    public void fillDisk() {
        dev.herald.store.sqlite.FullDisk.fill((SqliteStorage) storage);
        Thread.ofVirtual().name("fixture-full-disk-write").start(() -> {
            try {
                storage.platformState().put(Platform.of("fixture"), Map.of("filler", "f".repeat(50_000)));
            } catch (RuntimeException e) {
                // the disk stayed full for longer than the store's wait: nothing to keep
            }
        });
        await().atMost(WAIT).until(() -> !storage.health().writable());
    }

    /** Space is free again; returns once the store takes writes again. */
    public void freeDisk() {
        dev.herald.store.sqlite.FullDisk.free((SqliteStorage) storage);
        await().atMost(WAIT).until(() -> storage.health().writable());
    }

    /** Every turn the store holds, whatever its state. */
    public List<TurnRecord> turns() {
        // a turn moving on while the states are read shows up twice; states only move forward, in the enum's order
        Map<Long, TurnRecord> all = new TreeMap<>();
        for (TurnState s : TurnState.values()) {
            storage.turns().inState(s, 10_000).forEach(t -> all.put(t.id(), t));
        }
        return new ArrayList<>(all.values());
    }

    /** Turns of the adapter's platform in {@code state}, oldest first. */
    public List<TurnRecord> turns(TurnState state) {
        return storage.turns().inState(state, 1000).stream().filter(t -> t.source().platform().equals(current.platform())).toList();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        kit.beforeEach(context);
        storage = kit.storage();
    }

    /** Checks the store invariants (the harness stops the running gateway first), then closes the adapter and the peers. */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            kit.afterEach(context);
        } finally {
            if (current != null) {
                current.close();
            }
            for (AutoCloseable peer : peers) {
                peer.close();
            }
        }
    }
}
