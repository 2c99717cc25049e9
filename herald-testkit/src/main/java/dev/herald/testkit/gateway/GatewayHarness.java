package dev.herald.testkit.gateway;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayBuilder;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.inbound.GatewayState;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.HomeChannel;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.Relay;
import dev.herald.core.session.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one way tests build a Herald gateway: the real gateway on a real store from a {@link StorageFactory} (a SQLite
 * file by default, the embedded PostgreSQL where a test asks for it), with the agent, access rules and platform
 * adapters of the test, and the store invariants ({@link Invariant}) checked after every test.
 *
 * <p>Processes. {@link #gateway} builds the current process's gateway on the current store (not started).
 * {@link #nextProcess} ends that process as a kill -9 would: its gateway is abandoned as it is (nothing stopped; stop
 * it first for a graceful restart) and the store is opened again from disk for the next process. Every adapter is
 * wrapped in a {@link RecordingAdapter}, so the harness knows what each platform accepted, across processes.
 *
 * <p>After the test ({@link #close}, or {@code afterEach} when registered with {@code @RegisterExtension}): while the
 * current gateway still runs, every RUNNING turn must be run by one of its lanes; then the gateway is stopped as
 * SIGTERM would, and the remaining invariants are read from the store. A violation fails the test with one line per
 * turn or session. A scenario that breaks one on purpose skips it with {@link #skipCheck}, giving its reason. The
 * peers given to {@link #closing}, the stores and a home folder the harness created are closed or deleted last.
 */
public final class GatewayHarness implements BeforeEachCallback, AfterEachCallback, AutoCloseable {
    /** How long a RUNNING turn may go without a lane before it counts as left running (a lane reports it just after). */
    static final Duration OWNER_GRACE = Duration.ofSeconds(2);

    private final StorageFactory stores;
    private final Clock clock;
    private final List<Storage> opened = new ArrayList<>();
    private final List<RecordingAdapter.Sent> sent = new CopyOnWriteArrayList<>();
    private final Map<Invariant, String> skipped = new EnumMap<>(Invariant.class);
    private final List<AutoCloseable> peers = new ArrayList<>();
    private Path home;
    private boolean ownsHome;
    private Storage storage;
    private Gateway gateway;
    private int process;

    private GatewayHarness(StorageFactory stores, Clock clock) {
        this.stores = Objects.requireNonNull(stores, "stores");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A harness whose processes open their store with {@code stores} and tell time by {@code clock}. */
    public static GatewayHarness on(StorageFactory stores, Clock clock) {
        return new GatewayHarness(stores, clock);
    }

    /** Opens the first process's store in {@code home}, a folder the caller owns (a JUnit {@code @TempDir}). */
    public GatewayHarness open(Path home) {
        if (this.home != null) {
            throw new IllegalStateException("harness - already open in " + this.home);
        }
        this.home = Objects.requireNonNull(home, "home");
        this.storage = openStore();
        return this;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        open(Files.createTempDirectory("herald-harness-"));
        ownsHome = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    public Clock clock() {
        return clock;
    }

    public Path home() {
        return requireOpen();
    }

    /** The current process's store. */
    public Storage storage() {
        requireOpen();
        return storage;
    }

    /** The current process's gateway, or null before {@link #gateway} and after {@link #nextProcess}. */
    public Gateway gateway() {
        return gateway;
    }

    /**
     * Builds the current process's gateway (not started) on the current store, replacing one that never started.
     * The adapters are wrapped so the harness sees what their platforms accepted; the wrappers are what the gateway
     * holds, the adapters themselves stay the test's to drive.
     */
    public Gateway gateway(Agent agent, Authorizer authorizer, Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homes,
            GatewaySettings settings, GatewayMetrics metrics) {
        return gateway(agent, authorizer, adapters, homes, List.of(), settings, metrics, b -> b);
    }

    /** {@link #gateway(Agent, Authorizer, Collection, Collection, GatewaySettings, GatewayMetrics)} with chats whose replies are relayed. */
    public Gateway gateway(Agent agent, Authorizer authorizer, Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homes,
            Collection<Relay> relays, GatewaySettings settings, GatewayMetrics metrics) {
        return gateway(agent, authorizer, adapters, homes, relays, settings, metrics, b -> b);
    }

    /** As {@link #gateway(Agent, Authorizer, Collection, Collection, GatewaySettings, GatewayMetrics)}, with {@code more} set on its builder (commands, hooks). */
    public Gateway gateway(Agent agent, Authorizer authorizer, Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homes,
            GatewaySettings settings, GatewayMetrics metrics, java.util.function.UnaryOperator<GatewayBuilder> more) {
        return gateway(agent, authorizer, adapters, homes, List.of(), settings, metrics, more);
    }

    /** The gateway of {@link #gateway(Agent, Authorizer, Collection, Collection, Collection, GatewaySettings, GatewayMetrics)}, with {@code more} set on its builder. */
    public Gateway gateway(Agent agent, Authorizer authorizer, Collection<? extends PlatformAdapter> adapters, Collection<HomeChannel> homes,
            Collection<Relay> relays, GatewaySettings settings, GatewayMetrics metrics, java.util.function.UnaryOperator<GatewayBuilder> more) {
        requireOpen();
        if (gateway != null && gateway.status().startedAt() != null) {
            throw new IllegalStateException("harness - this process's gateway was started already; stop it or call nextProcess() first");
        }
        int p = process;
        List<PlatformAdapter> recorded = adapters.stream().<PlatformAdapter>map(a -> new RecordingAdapter(a, p, sent::add)).toList();
        gateway = more.apply(Gateway.builder(storage, agent, authorizer, new PlatformRegistry(recorded, homes, relays))
                .settings(settings)
                .clock(clock)
                .metrics(metrics))
                .build();
        return gateway;
    }

    /**
     * Ends the current process as a kill -9 would: its gateway is abandoned mid-flight (not stopped: its lanes, store
     * and adapters are left as they are) and the store is opened again from disk for the next process.
     */
    public void nextProcess() {
        requireOpen();
        gateway = null;
        process++;
        storage = openStore();
    }

    /** Every message the platforms accepted so far, in order, across processes. */
    public List<RecordingAdapter.Sent> sent() {
        return List.copyOf(sent);
    }

    /** Skips one invariant for this test, because its scenario breaks it on purpose; {@code reason} says how. */
    public GatewayHarness skipCheck(Invariant check, String reason) {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("harness - skipping " + check + " needs a reason (what in the scenario breaks it)");
        }
        skipped.put(check, reason);
        return this;
    }

    /** Closes {@code peer} (a fake platform, a web server) at the end of the test, after the gateway, before the stores. */
    public GatewayHarness closing(AutoCloseable peer) {
        peers.add(peer);
        return this;
    }

    /**
     * Checks the invariants, then closes everything: the current gateway is stopped (as SIGTERM would), the peers, the
     * stores and a home folder the harness created are closed or deleted. Throws an {@link AssertionError} naming
     * every violation.
     */
    @Override
    public void close() {
        if (home == null) {
            return;
        }
        String where = storage.describe();
        List<String> problems = new ArrayList<>();
        try {
            problems.addAll(checkAndStop());
        } finally {
            release(problems);
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("store invariants violated after the test (" + where + "):\n  - " + String.join("\n  - ", problems));
        }
    }

    private List<String> checkAndStop() {
        List<String> problems = new ArrayList<>();
        Gateway g = gateway;
        boolean checkRunning = !skipped.containsKey(Invariant.NO_TURN_LEFT_RUNNING);
        if (g != null && checkRunning && g.status().state() == GatewayState.RUNNING) {
            problems.addAll(StoreInvariants.ownedWhileRunning(storage, g, OWNER_GRACE));
        }
        if (g != null) {
            try {
                g.stop(StopKind.SHUTDOWN, false);
            } catch (RuntimeException e) {
                problems.add("the gateway did not stop cleanly: " + e);
            }
        }
        problems.addAll(StoreInvariants.afterStop(storage, sent(), skipped.keySet()));
        return problems;
    }

    private void release(List<String> problems) {
        for (AutoCloseable peer : peers) {
            try {
                peer.close();
            } catch (Exception e) {
                problems.add("closing " + peer + " failed: " + e);
            }
        }
        for (Storage s : opened) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // a store abandoned by a simulated crash may be closed already
            }
        }
        if (ownsHome) {
            delete(home);
        }
        opened.clear();
        peers.clear();
        home = null;
        ownsHome = false;
    }

    private Storage openStore() {
        Storage s = stores.open(home, clock);
        opened.add(s);
        return s;
    }

    private Path requireOpen() {
        if (home == null) {
            throw new IllegalStateException("harness - not open: call open(home) or register it with @RegisterExtension");
        }
        return home;
    }

    private static void delete(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("harness - could not delete " + root, e);
        }
    }
}
