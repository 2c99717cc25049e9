package dev.herald.bench;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ChatMessage;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.auth.AccessPolicy;
import dev.herald.core.auth.Allowlists;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.store.sqlite.SqliteBulkLoader;
import dev.herald.store.sqlite.SqliteStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Restart recovery at scale, on a real SQLite file:
 *
 * <ol>
 *   <li>resume dispatch: a store with {@code --pending} resume-pending sessions on one platform; the
 *       platform connects; how long until every resume turn is dispatched (lane claimed, turn launched), and
 *       until every one has reached the agent (an instant agent, so the figure is the gateway's own cost);</li>
 *   <li>gateway start-up with {@code --stored} sessions: opening the store, the crash sweep, the stuck-loop
 *       sweep, and starting (no platform), which must not grow with the number of stored sessions.</li>
 * </ol>
 * Prints one table. {@code bin/bench-restart} runs it.
 */
public final class RestartBench {
    private RestartBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Args.parse(args);
        int pending = Integer.parseInt(opts.getOrDefault("pending", "10000"));
        List<Integer> stored = Args.sizes(opts.getOrDefault("stored", "10000,100000,1000000"));
        Path dir = Files.createTempDirectory(Path.of(opts.getOrDefault("dir", System.getProperty("java.io.tmpdir"))), "herald-restart-bench");
        Clock clock = Clock.systemUTC();
        System.out.printf("%-44s %12s%n", "measure", "result");
        resumeDispatch(dir.resolve("resume.db"), pending, clock);
        for (int n : stored) {
            startup(dir.resolve("startup-" + n + ".db"), n, clock);
        }
        Args.deleteTree(dir);
    }

    private static void resumeDispatch(Path db, int pending, Clock clock) throws Exception {
        SqliteBulkLoader.fill(db, pending, 2, clock);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                PreparedStatement ps = c.prepareStatement(
                        "UPDATE sessions SET resume_pending = 1, resume_reason = 'restart_timeout', resume_marked_at = ?")) {
            ps.setLong(1, clock.millis() * 1000);
            ps.executeUpdate();
        }
        AtomicInteger calls = new AtomicInteger();
        Agent instant = instantAgent(calls);
        Platform p = Platform.of("loopback");
        LoopbackPlatform loopback = new LoopbackPlatform(p, Capabilities.basicChat(), clock).startDisconnected();
        try (SqliteStorage storage = SqliteStorage.open(db, clock)) {
            Gateway g = Gateway.builder(storage, instant, new Allowlists(Map.of(p, AccessPolicy.allowAll()), false), new PlatformRegistry(List.of(loopback), List.of()))
                    .settings(GatewaySettings.defaults())
                    .clock(clock)
                    .metrics(GatewayMetrics.NONE)
                    .build();
            g.start(Gateway.StartOptions.normal());
            long t0 = System.nanoTime();
            loopback.reconnect();
            long dispatched = System.nanoTime() - t0;
            while (calls.get() < pending) {
                Thread.sleep(1);
            }
            long reached = System.nanoTime() - t0;
            while (loopback.sent().size() < pending) {
                Thread.sleep(5);
            }
            long answered = System.nanoTime() - t0;
            g.stop(dev.herald.core.gateway.StopKind.SHUTDOWN, false);
            System.out.printf("%-44s %9d ms%n", "resume: " + pending + " sessions dispatched", dispatched / 1_000_000);
            System.out.printf("%-44s %9d ms%n", "resume: " + pending + " turns reached the agent", reached / 1_000_000);
            System.out.printf("%-44s %9d ms%n", "resume: " + pending + " replies recorded and sent", answered / 1_000_000);
        }
    }

    private static Agent instantAgent(AtomicInteger calls) {
        return new Agent() {
            @Override
            public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
                calls.incrementAndGet();
                listener.onMessage(ChatMessage.assistant("resumed"));
                return new TurnOutcome.Final("resumed");
            }

            @Override
            public String describe() {
                return "instant";
            }
        };
    }

    private static void startup(Path db, int sessions, Clock clock) {
        SqliteBulkLoader.fill(db, sessions, 1, clock);
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            try (SqliteStorage storage = SqliteStorage.open(db, clock)) {
                Gateway g = Gateway.builder(storage, instantAgent(new AtomicInteger()), new Allowlists(Map.of(), false), new PlatformRegistry(List.of(), List.of()))
                        .settings(GatewaySettings.defaults().withDrainTimeout(Duration.ZERO))
                        .clock(clock)
                        .metrics(GatewayMetrics.NONE)
                        .build();
                g.start(Gateway.StartOptions.normal());
                best = Math.min(best, System.nanoTime() - t0);
                g.stop(dev.herald.core.gateway.StopKind.SHUTDOWN, false);
            }
        }
        System.out.printf("%-44s %9.1f ms%n", String.format("start-up with %,d stored sessions (best of 5)", sessions), best / 1e6);
    }
}
