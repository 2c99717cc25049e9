package dev.herald.core.platform;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

/**
 * What Herald gives a {@link PlatformPlugin} to build its adapter with: the clock, the platform's own folder under
 * Herald's home, the store's platform state (shared by every node of a cluster), and where to register what the
 * platform offers besides its adapter. HTTP and WebSocket clients are the adapter's own: each platform sets its
 * timeouts, and the core has none to give (it holds no HTTP client). Reconnection pacing is
 * {@link dev.herald.core.retry.Backoff}, which an adapter builds from its own timing.
 */
public final class PlatformContext {
    private final Platform platform;
    private final Clock clock;
    private final Path home;
    private final PlatformState state;
    private final MediaFetchers fetchers;
    private final InboundHttp http;
    private final PlatformTools tools;
    private ChannelOverrides channels = ChannelOverrides.NONE;

    /**
     * @param platform the platform being built
     * @param clock    the clock every timestamp comes from
     * @param home     Herald's home ({@code $HERALD_HOME})
     * @param state    the store's platform state
     * @param fetchers where the platform registers its media fetcher
     */
    public PlatformContext(Platform platform, Clock clock, Path home, PlatformState state, MediaFetchers fetchers) {
        this(platform, clock, home, state, fetchers, null);
    }

    /** @param http where the platform serves the calls its service makes (null: Herald serves no HTTP) */
    public PlatformContext(Platform platform, Clock clock, Path home, PlatformState state, MediaFetchers fetchers, InboundHttp http) {
        this(platform, clock, home, state, fetchers, http, new PlatformTools());
    }

    /** @param tools where the platform offers the agent its tools (a fresh registry: offered tools reach no agent) */
    public PlatformContext(Platform platform, Clock clock, Path home, PlatformState state, MediaFetchers fetchers, InboundHttp http,
            PlatformTools tools) {
        this.tools = Objects.requireNonNull(tools, "tools");
        this.http = http == null ? InboundHttp.none(platform) : http;
        this.platform = Objects.requireNonNull(platform, "platform");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.home = Objects.requireNonNull(home, "home");
        this.state = Objects.requireNonNull(state, "state");
        this.fetchers = Objects.requireNonNull(fetchers, "fetchers");
    }

    /** This context with the operator's settings for single chats ({@code platforms.<type>.channels}); set before the adapter is built. */
    public PlatformContext withChannels(ChannelOverrides overrides) {
        this.channels = Objects.requireNonNull(overrides, "overrides");
        return this;
    }

    /** The operator's settings for single chats; an adapter with mention gating asks {@link ChannelOverrides#requireMention}. */
    public ChannelOverrides channels() {
        return channels;
    }

    public Platform platform() {
        return platform;
    }

    public Clock clock() {
        return clock;
    }

    /** Herald's home ({@code $HERALD_HOME}). */
    public Path home() {
        return home;
    }

    /** The platform's own files: {@code $HERALD_HOME/<type>} (not created until the platform writes there). */
    public Path folder() {
        return home.resolve(platform.id());
    }

    /** The platform's transport state in the store (a poll cursor, per-chat tokens), the same on every node. */
    public PlatformState state() {
        return state;
    }

    /**
     * Where the platform serves the calls its service makes to Herald (webhooks), under {@code /platforms/<type>/} on the
     * API server's listener; its {@code route} fails naming the key when that listener is off.
     */
    public InboundHttp http() {
        return http;
    }

    /** The platform fetches its attachments with {@code fetcher} (the agent asks it for images a vision model sees). */
    public void fetchMediaWith(MediaFetcher fetcher) {
        fetchers.register(platform, fetcher);
    }

    /**
     * The platform offers the agent {@code tool} (Home Assistant's {@code ha_states}). It is selected like an MCP server's
     * tool: by the {@code mcp} entry of {@code agent.tools} (every tool from a source outside Herald's built-ins).
     *
     * @throws IllegalArgumentException when another plug-in already offers a tool of that name
     */
    public void offerTool(PlatformTool tool) {
        tools.offer(platform, tool);
    }
}
