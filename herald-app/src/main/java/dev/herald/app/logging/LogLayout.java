package dev.herald.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * One log line: {@code 2026-12-02 20:56:10.123 INFO  gateway - <message>}. The subject is the logger's
 * name when it has no dot ({@code LoggerFactory.getLogger("resumer")}); for a Herald class it is the
 * class's package, i.e. its capability ({@code dev.herald.core.gateway.GatewayRunner} -> {@code gateway});
 * for anything else the class's simple name. A message that already starts with its own subject
 * ({@code store - opened ...}) is not prefixed a second time. Stack traces follow on their own lines.
 */
public final class LogLayout extends LayoutBase<ILoggingEvent> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneId.systemDefault());
    /** Herald's messages name their own subject ("store - ...", "telegram - ..."); those are not prefixed again. */
    private static final java.util.regex.Pattern OWN_SUBJECT = java.util.regex.Pattern.compile("[a-z][a-z0-9_]{0,31} - ");

    @Override
    public String doLayout(ILoggingEvent event) {
        String message = event.getFormattedMessage();
        StringBuilder line = new StringBuilder(128)
                .append(TIME.format(Instant.ofEpochMilli(event.getTimeStamp()))).append(' ')
                .append(String.format("%-5s", event.getLevel())).append(' ');
        if (message == null || !OWN_SUBJECT.matcher(message).lookingAt()) {
            line.append(subject(event.getLoggerName())).append(" - ");
        }
        line.append(message).append(CoreConstants.LINE_SEPARATOR);
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            line.append(ThrowableProxyUtil.asString(thrown)).append(CoreConstants.LINE_SEPARATOR);
        }
        return line.toString();
    }

    static String subject(String loggerName) {
        if (loggerName == null || loggerName.isEmpty()) {
            return "herald";
        }
        int last = loggerName.lastIndexOf('.');
        if (last < 0) {
            return loggerName;
        }
        if (loggerName.startsWith("dev.herald.")) {
            String pkg = loggerName.substring(0, last);
            return pkg.substring(pkg.lastIndexOf('.') + 1);
        }
        return loggerName.substring(last + 1);
    }
}
