package dev.herald.web.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.web.fuzz.Fuzz;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The API's request JSON from outside: random and mutated bodies either parse or fail with the API's own
 * 400 naming the problem; nothing else escapes. Seeded; see {@link Fuzz}.
 */
class ChatRequestFuzzTest {
    private static final String VALID = "{\"model\":\"herald\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
            + "\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
            + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"f\","
            + "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"r\"},{\"role\":\"user\",\"content\":\"go\"}]}";

    @Test
    void randomAndMutatedBodies_parseOrFailWithA400_neverAnythingElse() {
        Random r = Fuzz.random();
        int parsed = 0;
        for (int i = 0; i < Fuzz.ITERATIONS; i++) {
            String body = i % 2 == 0 ? Fuzz.mutate(r, VALID) : Fuzz.text(r, 200);
            try {
                ChatRequest request = ChatRequest.parse(body.getBytes(StandardCharsets.UTF_8));
                assertThat(request.userMessage()).isNotBlank();
                parsed++;
            } catch (ApiError e) {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.getMessage()).isNotBlank();
            }
        }
        assertThat(parsed).as("some mutations still parse, so the parser was reached past the first byte").isPositive();
    }
}
