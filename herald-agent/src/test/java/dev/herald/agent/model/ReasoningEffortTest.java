package dev.herald.agent.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.Interrupt;
import dev.herald.testkit.model.FakeModelServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@code reasoning_effort} on the wire: the client sends a request's effort to the loopback fake model server only when
 * the model's settings list it ({@code reasoning_efforts}), never otherwise; a caller's own parameter wins.
 */
class ReasoningEffortTest {
    private static final FakeModelServer FAKE = FakeModelServer.start();
    private static final OpenAiCompatibleClient TAKES = Clients.against(Clients.settings(FAKE.baseUrl())
            .withReasoningEfforts(List.of("low", "high")));
    private static final OpenAiCompatibleClient TAKES_NONE = Clients.against(FAKE);

    @AfterAll
    static void stop() {
        TAKES.close();
        TAKES_NONE.close();
        FAKE.close();
    }

    private static com.fasterxml.jackson.databind.JsonNode sent(OpenAiCompatibleClient client, ModelRequest request) throws Exception {
        client.complete(request, new Recorder(), new Interrupt());
        return FAKE.lastRequest().json();
    }

    @Test
    void effortSetAndListed_isSent() throws Exception {
        assertThat(sent(TAKES, Clients.streamed("think").withReasoningEffort("high")).path("reasoning_effort").asText()).isEqualTo("high");
        assertThat(TAKES.reasoningEfforts()).containsExactly("low", "high");
    }

    @Test
    void effortNotSet_isNotSent() throws Exception {
        assertThat(sent(TAKES, Clients.streamed("plain")).has("reasoning_effort")).isFalse();
    }

    @Test
    void effortTheModelDoesNotList_isNotSent() throws Exception {
        assertThat(sent(TAKES, Clients.blocking("medium, please").withReasoningEffort("medium")).has("reasoning_effort")).isFalse();
        assertThat(sent(TAKES_NONE, Clients.blocking("high, please").withReasoningEffort("high")).has("reasoning_effort")).isFalse();
    }

    @Test
    void aCallersOwnReasoningEffortParameter_winsAndIsSentOnce() throws Exception {
        ModelRequest request = Clients.streamed("api").withParameters(Map.of("reasoning_effort", "\"low\"")).withReasoningEffort("high");
        var body = sent(TAKES, request);
        assertThat(body.path("reasoning_effort").asText()).isEqualTo("low");
        assertThat(FAKE.lastRequest().body().split("\"reasoning_effort\"", -1)).as("the field appears once").hasSize(2);
    }

    @Test
    void settings_refuseAnEffortTheyDoNotKnow() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Clients.settings(FAKE.baseUrl()).withReasoningEfforts(List.of("max")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("model.reasoning_efforts takes [low, medium, high] (got 'max')");
    }
}
