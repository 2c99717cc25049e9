package dev.herald.app.runtime;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SupervisorLinesTest {
    @Test
    void format_fillsThePlaceholdersInOrder_andLeavesTheRestAsWritten() {
        assertThat(Supervisor.Lines.format("supervisor - gateway {} died (exit {}); starting a new one in {} s", 42L, 137, 4L))
                .isEqualTo("supervisor - gateway 42 died (exit 137); starting a new one in 4 s");
        assertThat(Supervisor.Lines.format("a {} b {}", "x")).isEqualTo("a x b {}");
        assertThat(Supervisor.Lines.format("no placeholder", "x")).isEqualTo("no placeholder");
        assertThat(Supervisor.Lines.format("{}{}", null, "{}")).isEqualTo("null{}");
    }
}
