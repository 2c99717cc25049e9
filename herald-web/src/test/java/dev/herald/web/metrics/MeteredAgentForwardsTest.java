package dev.herald.web.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.TurnListener;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * MeteredAgent sits between the agent and the gateway in every real run, so a listener method it does not forward is a
 * feature lost in production only (files the agent sent were, until this test: its listener fell back on the interface's
 * no-op default). Every method of {@link TurnListener} must be declared by its wrapper.
 */
class MeteredAgentForwardsTest {
    @Test
    void theMeteredListener_declaresEveryTurnListenerMethod() throws Exception {
        Class<?> metered = Class.forName("dev.herald.web.metrics.MeteredAgent$Metered");
        List<String> missing = new ArrayList<>();
        for (Method m : TurnListener.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                metered.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertThat(missing).as("TurnListener methods MeteredAgent's listener does not forward").isEmpty();
    }
}
