package dev.herald.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.ModelOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code price_per_million} on {@code model:} and on a profile under {@code models:}, for /usage's cost. */
class PriceConfigTest {
    @TempDir
    Path home;

    @Test
    void pricesAreRead_forTheDefaultModelAndAProfile_andLeftOutMeansNone() {
        HeraldConfig c = new ConfigFixture(home).config("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                  name: small
                  price_per_million: {input: 0.15, output: 0.6}
                models:
                  big:
                    name: large
                    price_per_million:
                      input: 2.5
                      output: 10
                      cached_input: 1.25
                  free:
                    name: local
                """);

        assertThat(c.model().pricePerMillion().prices()).isEqualTo(new ModelOption.Prices(0.15, 0.6, null));
        assertThat(c.models().get("big").pricePerMillion().prices()).isEqualTo(new ModelOption.Prices(2.5, 10.0, 1.25));
        assertThat(c.models().get("free").pricePerMillion().prices().known()).isFalse();
        assertThat(new ModelOption.Prices(2.5, 10.0, null).cost(1_000_000, 100_000)).isEqualTo(3.5);
    }

    @Test
    void aNegativePrice_orInputWithoutOutput_isRefusedByName() {
        assertThat(new ConfigFixture(home).error("""
                model:
                  name: small
                  price_per_million: {input: -1, output: 1}
                """)).contains("model.price_per_million.input").contains("must not be negative");
        assertThat(new ConfigFixture(home).error("""
                model:
                  base_url: http://127.0.0.1:11434/v1
                models:
                  big:
                    name: large
                    price_per_million: {input: 1}
                """)).contains("models.big.price_per_million.input").contains("set together");
    }
}
