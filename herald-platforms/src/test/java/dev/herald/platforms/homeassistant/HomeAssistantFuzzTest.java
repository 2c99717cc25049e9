package dev.herald.platforms.homeassistant;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.PlatformTool;
import dev.herald.core.platform.PlatformTools;
import dev.herald.platforms.RecordingSink;
import dev.herald.testkit.fuzz.Fuzzer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tool arguments as a hostile model writes them: the tools never throw, and whatever reaches Home Assistant names only
 * valid domains, services and entity ids, with service data that names no target of its own.
 */
@Tag("fuzz")
class HomeAssistantFuzzTest {
    static final List<String> CORPUS = List.of(
            "{\"domain\":\"light\",\"service\":\"turn_on\",\"entity\":[\"light.kitchen\"],\"data\":{\"brightness_pct\":40}}",
            "{\"domain\":\"lock\",\"service\":\"unlock\",\"entity\":[\"lock.front_door\"]}",
            "{\"domain\":\"light\",\"service\":\"turn_off\",\"entity\":[\"light.porch\",\"light.kitchen\"],\"data\":{\"transition\":2}}",
            "{\"domain\":\"notify\",\"service\":\"mobile_app_phone\",\"data\":{\"message\":\"hi\",\"data\":{\"tag\":[1,2]}}}",
            "{\"domain\":\"light\",\"entity\":[\"sensor.outside_temperature\"]}");

    final FakeHomeAssistant ha = new FakeHomeAssistant();
    HomeAssistantAdapter adapter;

    @AfterEach
    void stop() {
        if (adapter != null) {
            adapter.close();
        }
        ha.close();
    }

    @Test
    void theTools_neverThrow_andOnlyValidCallsReachHomeAssistant() throws Exception {
        PlatformTools tools = new PlatformTools();
        adapter = HomeAssistantPlugin.create(HomeAssistantSettings.of(ha.url(), FakeHomeAssistant.TOKEN), HomeAssistantHarness.timing(),
                HomeAssistantHarness.context(tools));
        adapter.start(new RecordingSink());
        PlatformTool call = tools.all().stream().filter(t -> t.name().equals("ha_call_service")).findFirst().orElseThrow();
        PlatformTool states = tools.all().stream().filter(t -> t.name().equals("ha_states")).findFirst().orElseThrow();

        Fuzzer.of("ha_call_service arguments", CORPUS, 800).run(input -> {
            call.approvalReason(input);
            assertThat(call.summarize(input)).doesNotContain("\n");
            call.call(input);
            states.call(input);
        }, t -> false);

        for (FakeHomeAssistant.Call c : ha.calls) {
            assertThat(HomeAssistantIds.validDomain(c.domain())).as(c.toString()).isTrue();
            assertThat(HomeAssistantIds.validDomain(c.service())).as(c.toString()).isTrue();
            for (JsonNode e : c.target().path("entity_id")) {
                assertThat(HomeAssistantIds.validEntity(e.asText())).as(c.toString()).isTrue();
            }
            assertThat(c.serviceData().has("entity_id") || c.serviceData().has("device_id") || c.serviceData().has("area_id"))
                    .as(c.toString()).isFalse();
        }
    }
}
