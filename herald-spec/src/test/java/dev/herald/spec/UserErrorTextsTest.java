package dev.herald.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.CrashPoints;
import dev.herald.core.UserErrors;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.Interrupt;
import dev.herald.core.agent.TurnListener;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.MessageKind;
import dev.herald.core.platform.loopback.LoopbackPlatform;
import dev.herald.core.turn.TurnOutcome;
import org.junit.jupiter.api.Test;

/**
 * Every way a turn can fail reaches the chat as a text written for users ({@link UserErrors}): never a log line's subject
 * ({@code agent - }), an exception's class, a host, a URL or a path, whatever the agent or the gateway had in hand.
 */
class UserErrorTextsTest extends GatewaySpec {

    private LoopbackPlatform started(Agent agent) {
        h = new Harness(dir).platform("telegram", true);
        h.agentOverride = agent;
        h.start();
        return h.loopback("telegram");
    }

    private static Agent agent(java.util.function.Supplier<TurnOutcome> turn) {
        return new Agent() {
            @Override
            public TurnOutcome runTurn(TurnRequest request, TurnListener listener, Interrupt interrupt) {
                return turn.get();
            }

            @Override
            public String describe() {
                return "failing test agent";
            }
        };
    }

    private static void assertFit(LoopbackPlatform chat) {
        assertThat(chat.sent()).isNotEmpty().allSatisfy(s -> assertThat(UserErrors.unfit(s.text())).as(s.text()).isEmpty());
    }

    @Test
    void agentThatThrows_theChatReadsTheApology_notTheException() {
        LoopbackPlatform chat = started(agent(() -> {
            throw new IllegalStateException("connection to jdbc:postgresql://db.internal:5432/herald refused");
        }));

        chat.say(alice, "hello");

        chat.awaitSent(UserErrors.APOLOGY::equals, Harness.WAIT);
        assertThat(chat.sent()).singleElement().satisfies(s -> assertThat(s.message().kind()).isEqualTo(MessageKind.ERROR));
        assertFit(chat);
    }

    @Test
    void agentErrorInTheOperatorsWords_theChatReadsTheApology() {
        LoopbackPlatform chat = started(agent(() -> new TurnOutcome.Errored("agent - the turn failed unexpectedly (StoreException); "
                + "the operator can see the details in Herald's log")));

        chat.say(alice, "hello");

        chat.awaitSent(UserErrors.APOLOGY::equals, Harness.WAIT);
        assertFit(chat);
    }

    @Test
    void agentThatGaveUp_theChatReadsWhy_withoutTheLogSubject() {
        LoopbackPlatform chat = started(agent(() -> new TurnOutcome.Failed(
                "model - llama3 refused to answer (finish content_filter); rephrase the request")));

        chat.say(alice, "hello");

        chat.awaitSent("Llama3 refused to answer (finish content_filter); rephrase the request"::equals, Harness.WAIT);
        assertFit(chat);
    }

    @Test
    void failureInTheGatewayBeforeTheAgent_theChatReadsTheApology() {
        LoopbackPlatform chat = started(agent(() -> new TurnOutcome.Final("not reached")));

        try (CrashPoints.Injection ignored = CrashPoints.failAt(CrashPoints.BEFORE_AGENT, 1)) {
            chat.say(alice, "hello");
            chat.awaitSent(UserErrors.APOLOGY::equals, Harness.WAIT);
        }
        assertFit(chat);
    }
}
