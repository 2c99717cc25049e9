package dev.herald.app.logging;

import dev.herald.core.config.Doc;

/** {@code logging:} how {@code herald run} writes its log (the console and {@code $HERALD_HOME/logs/herald.log}). */
public record LoggingConfig(
        @Doc("text for people, or json: one object per line (timestamp, level, component, message, session_key, turn_id) for log shippers")
        LogFormat format) {

    public LoggingConfig {
        format = format == null ? LogFormat.TEXT : format;
    }

    public static LoggingConfig defaults() {
        return new LoggingConfig(LogFormat.TEXT);
    }
}
