package dev.herald.app.cluster;

import dev.herald.core.auth.Authorizer;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.cluster.NodeIdentity;
import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewaySettings;
import dev.herald.core.gateway.StopKind;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import dev.herald.testkit.agent.ScriptedAgent;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * One node of a cluster inside the test JVM: the real gateway on its own store connection (a pool of its own on the
 * shared database), a loopback chat platform and a scripted agent.
 */
final class Node implements AutoCloseable {
    static final Platform CHAT = Platform.of("loopback");

    final String id;
    final Storage storage;
    final ScriptedAgent agent = new ScriptedAgent();
    final LoopbackPlatform chat;
    final Gateway gateway;

    Node(String id, Storage storage, boolean clustered, Duration lease, Clock clock) {
        this(id, storage, clustered, lease, clock, null);
    }

    /** A node whose turns run on {@code runner} (a real agent) instead of its scripted agent; null: the scripted one. */
    Node(String id, Storage storage, boolean clustered, Duration lease, Clock clock, dev.herald.core.agent.Agent runner) {
        this.id = id;
        this.storage = storage;
        this.chat = new LoopbackPlatform(CHAT, new Capabilities(true, false, false, true, false, 4096), clock);
        GatewaySettings settings = GatewaySettings.defaults().withDrainTimeout(Duration.ofMillis(300)).withInterruptGrace(Duration.ofSeconds(2));
        this.gateway = Gateway.builder(storage, runner == null ? agent : runner, ALLOW_ALL, new PlatformRegistry(List.of(chat), List.of()))
                .settings(settings)
                .clock(clock)
                .metrics(GatewayMetrics.NONE)
                .cluster(new ClusterSettings(clustered, new NodeIdentity(id, NodeIdentity.hostName(), ProcessHandle.current().pid(), null), lease, null))
                .build();
    }

    /** Lets everyone in (these tests are about nodes, not authorization). */
    static final Authorizer ALLOW_ALL = new Authorizer() {
        @Override
        public boolean isAuthorized(SessionSource source) {
            return true;
        }

        @Override
        public boolean isAdmin(SessionSource source) {
            return false;
        }
    };

    Gateway.StartReport start() {
        return gateway.start(Gateway.StartOptions.normal());
    }

    static SessionSource dm(String chatId) {
        return new SessionSource(CHAT, chatId, ChatType.DM, "u" + chatId, null, null, null);
    }

    @Override
    public void close() {
        gateway.stop(StopKind.SHUTDOWN, false);
        storage.close();
    }
}
