package dev.herald.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

/**
 * One log event as one line of JSON ({@code logging.format: json}), for log shippers:
 * {@code {"timestamp":"2026-12-03T12:00:00.123Z","level":"INFO","component":"gateway","message":"...",
 * "session_key":"...","turn_id":"42","error":"..."}}. The component is what the text layout puts before
 * " - " ({@link LogLayout#subject}); a message that starts with its own subject loses that prefix here.
 * {@code session_key} and {@code turn_id} are present on the lines a turn writes; {@code error} holds a stack trace.
 */
final class JsonLogLayout extends LayoutBase<ILoggingEvent> {
    private static final JsonFactory JSON = new JsonFactory();
    private static final java.util.regex.Pattern OWN_SUBJECT = java.util.regex.Pattern.compile("([a-z][a-z0-9_]{0,31}) - ");

    @Override
    public String doLayout(ILoggingEvent event) {
        String message = event.getFormattedMessage() == null ? "" : event.getFormattedMessage();
        String component = LogLayout.subject(event.getLoggerName());
        java.util.regex.Matcher own = OWN_SUBJECT.matcher(message);
        if (own.lookingAt()) {
            component = own.group(1);
            message = message.substring(own.end());
        }
        StringWriter out = new StringWriter(160);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("timestamp", Instant.ofEpochMilli(event.getTimeStamp()).toString());
            g.writeStringField("level", event.getLevel().toString());
            g.writeStringField("component", component);
            g.writeStringField("message", message);
            Map<String, String> mdc = event.getMDCPropertyMap();
            if (mdc != null) {
                for (String key : new String[] {"session_key", "turn_id"}) {
                    if (mdc.get(key) != null) {
                        g.writeStringField(key, mdc.get(key));
                    }
                }
            }
            g.writeStringField("thread", event.getThreadName());
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                g.writeStringField("error", ThrowableProxyUtil.asString(thrown));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.append(CoreConstants.LINE_SEPARATOR).toString();
    }
}
