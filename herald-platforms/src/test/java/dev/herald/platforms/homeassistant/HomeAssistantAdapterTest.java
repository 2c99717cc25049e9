package dev.herald.platforms.homeassistant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.PlatformTool;
import dev.herald.core.platform.PlatformTools;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.RecordingSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real adapter and its WebSocket client against {@link FakeHomeAssistant}: the token's authentication and its
 * refusal, a reconnection after Home Assistant drops the connection, {@code ha_states} read through
 * {@code get_states}, and Herald's messages shown as notifications.
 */
class HomeAssistantAdapterTest {
    static final FakeHomeAssistant HA = new FakeHomeAssistant();

    final List<HomeAssistantAdapter> adapters = new ArrayList<>();
    final RecordingSink sink = new RecordingSink();
    PlatformTools tools;

    @AfterAll
    static void stopFake() {
        HA.close();
    }

    @BeforeEach
    void fresh() {
        tools = new PlatformTools();
    }

    @AfterEach
    void close() {
        adapters.forEach(HomeAssistantAdapter::close);
    }

    private HomeAssistantAdapter started(String token) throws Exception {
        HomeAssistantAdapter adapter = HomeAssistantPlugin.create(HomeAssistantSettings.of(HA.url(), token), HomeAssistantHarness.timing(),
                HomeAssistantHarness.context(tools));
        adapters.add(adapter);
        adapter.start(sink);
        return adapter;
    }

    private PlatformTool tool(String name) {
        return tools.all().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void start_withAWrongToken_failsNamingThePlatformAndTheKey_neverTheToken() {
        String wrong = "wrong-secret-token-0123456789";
        assertThatThrownBy(() -> started(wrong)).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("homeassistant - Home Assistant refused the access token")
                .hasMessageContaining("platforms.homeassistant.token")
                .message().doesNotContain(wrong);
        assertThat(HA.tokensRefused).contains(wrong);
        assertThat(sink.details).noneMatch(d -> d.contains(wrong));
    }

    @Test
    void theStatesTool_listsEntitiesWithTheirStates_filteredByDomainOrIds() throws Exception {
        started(FakeHomeAssistant.TOKEN);
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.states.contains(ConnectionState.CONNECTED)); // reported just after start returns

        PlatformTool.Result lights = tool("ha_states").call("{\"domain\":\"light\"}");
        assertThat(lights.error()).isFalse();
        assertThat(lights.text()).contains("light.kitchen: ", "(friendly_name=Kitchen light)", "light.porch: on")
                .doesNotContain("lock.front_door", "sensor.");
        PlatformTool.Result sensor = tool("ha_states").call("{\"entity\":[\"sensor.outside_temperature\"]}");
        assertThat(sensor.text()).isEqualTo("sensor.outside_temperature: 7.5 (friendly_name=Outside, unit_of_measurement=°C)");
        PlatformTool.Result bad = tool("ha_states").call("{\"entity\":[\"sensor.outside; DROP\"]}");
        assertThat(bad.error()).isTrue();
        assertThat(bad.text()).contains("is not an entity id");
    }

    @Test
    void afterHomeAssistantDropsTheConnection_theAdapterConnectsAgain_andTheToolsWorkAgain() throws Exception {
        started(FakeHomeAssistant.TOKEN);
        int before = HA.authenticated.get();

        HA.dropAll();

        await().atMost(Duration.ofSeconds(10)).until(() -> HA.authenticated.get() > before && HA.connections() >= 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> !tool("ha_states").call("{\"domain\":\"lock\"}").error());
        assertThat(tool("ha_states").call("{\"domain\":\"lock\"}").text()).startsWith("lock.front_door: ");
        assertThat(sink.states).contains(ConnectionState.BACKING_OFF);
    }

    @Test
    void herald_sMessages_becomeNotifications_throughTheServiceTheChatIdNames() throws Exception {
        HomeAssistantAdapter adapter = started(FakeHomeAssistant.TOKEN);
        int calls = HA.calls.size();

        SendResult bell = adapter.send(new OutboundMessage(new ChatTarget("persistent_notification.create", null), "Gateway restarted.",
                MessageKind.REPLY, null, "c1", 1, 1, "k1"));
        SendResult phone = adapter.send(new OutboundMessage(new ChatTarget("notify.mobile_app_phone", null), "Door bell rang.",
                MessageKind.REPLY, null, "c2", 1, 1, "k2"));
        SendResult elsewhere = adapter.send(new OutboundMessage(new ChatTarget("lock.unlock", null), "hello",
                MessageKind.REPLY, null, "c3", 1, 1, "k3"));

        assertThat(bell.success()).isTrue();
        assertThat(phone.success()).isTrue();
        assertThat(elsewhere.success()).isFalse();
        assertThat(HA.calls.subList(calls, HA.calls.size())).extracting(c -> c.domain() + "." + c.service() + " "
                + c.serviceData().path("message").asText()).containsExactly("persistent_notification.create Gateway restarted.",
                "notify.mobile_app_phone Door bell rang.");
    }
}
