package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.Admission;
import dev.herald.core.platform.MessageEvent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a message asks of its turn beyond the text (the API server's model profile and parameters) travels on the
 * event: the gateway keeps it for that turn's start, and the adapter is never asked mid-turn.
 */
class EventOptionsTest extends GatewaySpec {
    @Test
    void optionsOnTheEvent_reachItsTurn_andNoOtherTurn() {
        h = new Harness(dir).platform("telegram", true);
        h.start();
        TurnOptions asked = new TurnOptions("fast", Map.of("temperature", "0.1"), List.of(), List.of());
        MessageEvent first = MessageEvent.text(alice, "with options", "tg-1", h.clock.instant()).withOptions(asked);

        assertThat(h.gateway.accept(first)).isEqualTo(Admission.ACCEPTED);
        h.loopback("telegram").awaitSent(t -> t.equals("echo: with options"), Harness.WAIT);
        h.gateway.accept(MessageEvent.text(alice, "without", "tg-2", h.clock.instant()));
        List<TurnRequest> calls = h.agent.awaitCalls(2, Harness.WAIT);

        assertThat(calls.get(0).options()).isEqualTo(asked);
        assertThat(calls.get(1).options()).isEqualTo(TurnOptions.NONE);
    }
}
