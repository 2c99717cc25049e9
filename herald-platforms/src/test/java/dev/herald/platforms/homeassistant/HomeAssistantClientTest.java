package dev.herald.platforms.homeassistant;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fake held to the official client's expectations: {@code home-assistant-js-websocket} (from npm, the client of
 * Home Assistant's own frontend) authenticates with a long-lived token, reads the states, subscribes to
 * {@code state_changed}, calls {@code light.turn_on} and sees the event, pings, gets Home Assistant's error for an
 * unknown service, and is refused with its own {@code ERR_INVALID_AUTH} for a wrong token.
 */
class HomeAssistantClientTest {
    static final Path DIR = Path.of("src/test/node");

    final FakeHomeAssistant ha = new FakeHomeAssistant();

    @AfterEach
    void stop() {
        ha.close();
    }

    @Test
    void theOfficialClient_readsStates_callsAService_seesTheEvent_andIsRefusedAWrongToken() throws Exception {
        if (!Files.isDirectory(DIR.resolve("node_modules/home-assistant-js-websocket"))) {
            throw new AssertionError("home-assistant-js-websocket is not installed; run: (cd herald-platforms/src/test/node && npm ci)");
        }
        Process p = new ProcessBuilder("node", "--experimental-websocket", "--no-warnings", "homeassistant-client.mjs", ha.url(),
                FakeHomeAssistant.TOKEN).directory(DIR.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        boolean ended = p.waitFor(30, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ended).as("the client script ended; its output:\n" + out).isTrue();
        assertThat(p.exitValue()).as("the client script's exit; its output:\n" + out).isZero();
        List<String> lines = out.lines().filter(l -> l.startsWith("{")).toList();
        assertThat(lines).as(out).isNotEmpty();
        JsonNode seen = FakeHomeAssistant.JSON.readTree(lines.getLast());

        assertThat(seen.path("haVersion").asText()).isEqualTo(FakeHomeAssistant.VERSION);
        assertThat(seen.path("entities")).extracting(JsonNode::asText).contains("light.kitchen", "lock.front_door");
        assertThat(seen.path("kitchenBefore").asText()).isEqualTo("off");
        assertThat(seen.path("callContext").asText()).isEqualTo("string");
        assertThat(seen.path("event").path("entity").asText()).isEqualTo("light.kitchen");
        assertThat(seen.path("event").path("from").asText()).isEqualTo("off");
        assertThat(seen.path("event").path("to").asText()).isEqualTo("on");
        assertThat(seen.path("pinged").asBoolean()).isTrue();
        assertThat(seen.path("unknownService").asText()).isEqualTo("not_found");
        assertThat(seen.path("badToken").asText()).isEqualTo("ERR_INVALID_AUTH");
        assertThat(ha.calls).singleElement().satisfies(c -> {
            assertThat(c.domain() + "." + c.service()).isEqualTo("light.turn_on");
            assertThat(c.serviceData().path("brightness_pct").asInt()).isEqualTo(40);
            assertThat(c.target().path("entity_id").asText()).isEqualTo("light.kitchen");
        });
        assertThat(ha.commands).as("the client announced its features after auth_ok, as it does with Home Assistant 2022.9 and later")
                .contains("supported_features");
    }
}
