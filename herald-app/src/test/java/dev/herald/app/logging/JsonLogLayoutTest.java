package dev.herald.app.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code logging.format: json}: every event is one line holding one JSON object a log shipper can read. */
class JsonLogLayoutTest {
    private final LoggerContext ctx = new LoggerContext();
    private final JsonLogLayout layout = new JsonLogLayout();

    private JsonNode line(String logger, Level level, String message, Throwable error, Map<String, String> mdc) throws Exception {
        LoggingEvent e = new LoggingEvent("x", ctx.getLogger(logger), level, message, error, null);
        e.setMDCPropertyMap(mdc);
        String text = layout.doLayout(e);
        assertThat(text).endsWith(System.lineSeparator());
        assertThat(text.strip()).doesNotContain("\n");
        return new ObjectMapper().readTree(text);
    }

    @Test
    void aTurnsLine_carriesTimestampLevelComponentMessageSessionKeyAndTurnId() throws Exception {
        JsonNode n = line("dev.herald.agent.ModelAgent", Level.INFO, "agent - turn done in 55 ms: 1 model call(s)", null,
                Map.of("session_key", "agent:main:telegram:dm:42", "turn_id", "17"));

        assertThat(n.path("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        assertThat(n.path("level").asText()).isEqualTo("INFO");
        assertThat(n.path("component").asText()).isEqualTo("agent");
        assertThat(n.path("message").asText()).isEqualTo("turn done in 55 ms: 1 model call(s)");
        assertThat(n.path("session_key").asText()).isEqualTo("agent:main:telegram:dm:42");
        assertThat(n.path("turn_id").asText()).isEqualTo("17");
    }

    @Test
    void aLineOutsideATurn_hasNoSessionFields_andAStackTraceStaysOnTheSameLine() throws Exception {
        JsonNode n = line("org.eclipse.jetty.server.Server", Level.WARN, "quote \" and\nnewline", new IllegalStateException("boom"), Map.of());

        assertThat(n.path("component").asText()).isEqualTo("Server");
        assertThat(n.path("message").asText()).isEqualTo("quote \" and\nnewline");
        assertThat(n.has("session_key")).isFalse();
        assertThat(n.has("turn_id")).isFalse();
        assertThat(n.path("error").asText()).contains("java.lang.IllegalStateException: boom");
    }
}
