package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code reasoning_efforts} on {@code model:} and on a profile under {@code models:}, for /reasoning. */
class ReasoningEffortsConfigTest {
    @TempDir
    Path home;

    @Test
    void effortsAreRead_forTheDefaultModelAndAProfile_andLeftOutMeansNone() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                  name: small
                models:
                  thinker: {name: o3-mini, reasoning_efforts: [low, medium, high]}
                """);

        assertThat(c.model().reasoningEfforts()).isEmpty();
        assertThat(c.models().get("thinker").reasoningEfforts()).containsExactly("low", "medium", "high");
    }

    @Test
    void anUnknownEffort_orOneNamedTwice_isRefusedByName() {
        assertThat(new ConfigFixture(home).error("""
                model:
                  name: small
                  reasoning_efforts: [max]
                """)).contains("model.reasoning_efforts").contains("takes low, medium and high, was \"max\"");
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                models:
                  big: {name: large, reasoning_efforts: [high, high]}
                """)).contains("models.big.reasoning_efforts").contains("names an effort twice");
    }
}
