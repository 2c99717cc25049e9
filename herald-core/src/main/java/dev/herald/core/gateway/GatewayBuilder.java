package dev.herald.core.gateway;

import dev.herald.core.agent.Agent;
import dev.herald.core.auth.Authorizer;
import dev.herald.core.cluster.ClusterSettings;
import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.lanes.StoredTurnOptions;
import dev.herald.core.metrics.GatewayMetrics;
import dev.herald.core.outbox.PlatformRegistry;
import dev.herald.core.platform.HomeChannelStore;
import dev.herald.core.session.SessionSource;
import dev.herald.core.session.Storage;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a gateway is made of, set before it is built: its settings, clock, metrics and node, the chat commands
 * it adds, where it keeps home channels and finds stored turn options, and what a restart request, a clean stop, a
 * handover and being fenced out do. Nothing about a gateway changes after {@link #build}.
 */
public final class GatewayBuilder {
    private static final Logger log = LoggerFactory.getLogger(Gateway.class);

    final Storage storage;
    final Agent agent;
    final Authorizer authorizer;
    final PlatformRegistry platforms;
    GatewaySettings settings = GatewaySettings.defaults();
    Clock clock = Clock.systemUTC();
    GatewayMetrics metrics = GatewayMetrics.NONE;
    ClusterSettings cluster = ClusterSettings.single();
    final List<CommandExtension> commands = new java.util.ArrayList<>();
    java.util.function.Predicate<dev.herald.core.session.SessionSource> approvers = s -> true;
    dev.herald.core.auth.CommandTiers commandTiers = dev.herald.core.auth.CommandTiers.defaults();
    HomeChannelStore homeChannels = HomeChannelStore.inMemory();
    Optional<StoredTurnOptions> storedOptions = Optional.empty();
    dev.herald.core.platform.ChannelOverrides channels = dev.herald.core.platform.ChannelOverrides.NONE;
    dev.herald.core.platform.MediaKeeper mediaKeeper = dev.herald.core.platform.MediaKeeper.NONE;
    Consumer<SessionSource> restartHandler = s -> log.warn("gateway - restart requested but no restart handler is installed");
    Consumer<Instant> cleanStopMarker = at -> {
    };
    Runnable onHandover = () -> {
    };
    Runnable fencedOut = () -> log.error("gateway - this node was fenced out; it stopped and must be started again");

    GatewayBuilder(Storage storage, Agent agent, Authorizer authorizer, PlatformRegistry platforms) {
        this.storage = java.util.Objects.requireNonNull(storage, "storage");
        this.agent = java.util.Objects.requireNonNull(agent, "agent");
        this.authorizer = java.util.Objects.requireNonNull(authorizer, "authorizer");
        this.platforms = java.util.Objects.requireNonNull(platforms, "platforms");
    }

    /** The gateway's tunables (default {@link GatewaySettings#defaults()}). */
    public GatewayBuilder settings(GatewaySettings settings) {
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
        return this;
    }

    /** The clock every timestamp comes from (default UTC system clock). */
    public GatewayBuilder clock(Clock clock) {
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Where the gateway reports its work (default: nowhere). */
    public GatewayBuilder metrics(GatewayMetrics metrics) {
        this.metrics = java.util.Objects.requireNonNull(metrics, "metrics");
        return this;
    }

    /** The node this gateway is (default: the only one). */
    public GatewayBuilder cluster(ClusterSettings cluster) {
        this.cluster = java.util.Objects.requireNonNull(cluster, "cluster");
        return this;
    }

    /** Keeps the bytes of the attachments {@code keeper} chooses (voice notes) before their message is stored. */
    public GatewayBuilder mediaKeeper(dev.herald.core.platform.MediaKeeper keeper) {
        this.mediaKeeper = java.util.Objects.requireNonNull(keeper, "keeper");
        return this;
    }

    /** A chat command answered by {@code command} (such as /schedule). */
    public GatewayBuilder command(CommandExtension command) {
        this.commands.add(java.util.Objects.requireNonNull(command, "command"));
        return this;
    }

    /** A chat command that exists only in some set-ups (/link, where web accounts are served); none when empty. */
    public GatewayBuilder command(java.util.Optional<? extends CommandExtension> command) {
        command.ifPresent(this::command);
        return this;
    }

    /**
     * Who may approve dangerous tool calls in their own turns (default: every sender); for the others such a call is
     * denied without asking and shell is not offered (web accounts that are not admins, unless configured otherwise).
     */
    public GatewayBuilder approvers(java.util.function.Predicate<dev.herald.core.session.SessionSource> mayApprove) {
        this.approvers = java.util.Objects.requireNonNull(mayApprove, "mayApprove");
        return this;
    }

    /** Which commands users who are not admins may run (default {@link dev.herald.core.auth.CommandTiers#defaults()}). */
    public GatewayBuilder commandTiers(dev.herald.core.auth.CommandTiers tiers) {
        this.commandTiers = java.util.Objects.requireNonNull(tiers, "tiers");
        return this;
    }

    /** Where /sethome keeps home channels; those saved earlier override configured ones at start (default: in memory). */
    public GatewayBuilder homeChannels(HomeChannelStore store) {
        this.homeChannels = java.util.Objects.requireNonNull(store, "store");
        return this;
    }

    /** Where turns find options stored for their request (a scheduled job's profile and tools). */
    public GatewayBuilder storedOptions(StoredTurnOptions source) {
        this.storedOptions = Optional.of(source);
        return this;
    }

    /** The operator's settings for single chats ({@code platforms.<type>.channels}): model, persona, tools, busy policy. */
    public GatewayBuilder channels(dev.herald.core.platform.ChannelOverrides overrides) {
        this.channels = java.util.Objects.requireNonNull(overrides, "overrides");
        return this;
    }

    /** What a restart request (/restart) does: typically stop with {@link StopKind#RESTART} and exit to be restarted. */
    public GatewayBuilder onRestartRequested(Consumer<SessionSource> handler) {
        this.restartHandler = java.util.Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** What a stop that cut nothing off records, so the next start knows it needs no recovery (the clean-stop marker). */
    public GatewayBuilder onCleanStop(Consumer<Instant> marker) {
        this.cleanStopMarker = java.util.Objects.requireNonNull(marker, "marker");
        return this;
    }

    /**
     * What a handover ({@link StopKind#HANDOVER}) does before it waits for the running turns: typically, the process
     * stops listening so that new requests reach the new process.
     */
    public GatewayBuilder onHandover(Runnable step) {
        this.onHandover = java.util.Objects.requireNonNull(step, "step");
        return this;
    }

    /**
     * What happens after this node found it was judged dead (paused past its lease) and stopped without writing:
     * typically, exit so that a new process joins as a new node.
     */
    public GatewayBuilder onFencedOut(Runnable action) {
        this.fencedOut = java.util.Objects.requireNonNull(action, "action");
        return this;
    }

    public Gateway build() {
        return new Gateway(this);
    }
}

