package dev.herald.platforms.homeassistant;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Home Assistant as a plug-in: {@code platforms.homeassistant}. It connects to Home Assistant's WebSocket API and offers
 * the agent {@code ha_states} and {@code ha_call_service} (selected by the {@code mcp} entry of {@code agent.tools}).
 */
public final class HomeAssistantPlugin implements PlatformPlugin<HomeAssistantSettings> {
    @Override
    public String type() {
        return HomeAssistantAdapter.PLATFORM.id();
    }

    @Override
    public Class<HomeAssistantSettings> settingsType() {
        return HomeAssistantSettings.class;
    }

    @Override
    public HomeAssistantSettings defaults() {
        return HomeAssistantSettings.defaults();
    }

    @Override
    public PlatformAdapter create(HomeAssistantSettings settings, PlatformContext context) {
        return create(settings, HomeAssistantSettings.Timing.defaults(), context);
    }

    /** The adapter with {@code timing} (tests shorten it), its tools offered to the agent. */
    static HomeAssistantAdapter create(HomeAssistantSettings settings, HomeAssistantSettings.Timing timing, PlatformContext context) {
        HomeAssistantAdapter adapter = new HomeAssistantAdapter(settings, timing);
        adapter.tools().forEach(context::offerTool);
        return adapter;
    }
}
