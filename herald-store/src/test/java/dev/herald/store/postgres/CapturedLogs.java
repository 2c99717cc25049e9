package dev.herald.store.postgres;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Everything logged (messages and the messages of attached exceptions) while it is open. */
public final class CapturedLogs implements AutoCloseable {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public CapturedLogs() {
        appender.start();
        root.addAppender(appender);
    }

    /** Each event as one text: its formatted message, then every exception message in its chain. */
    public List<String> texts() {
        List<String> out = new ArrayList<>();
        for (ILoggingEvent e : List.copyOf(appender.list)) {
            StringBuilder text = new StringBuilder(e.getFormattedMessage());
            for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
                text.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
            }
            out.add(text.toString());
        }
        return out;
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
