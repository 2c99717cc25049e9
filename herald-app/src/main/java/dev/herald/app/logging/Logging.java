package dev.herald.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import dev.herald.core.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Logging for {@code herald run}, set up in code once the home is known: the console (standard output)
 * and {@code $HERALD_HOME/logs/herald.log}, rolled daily and at 10 MB, 14 days and 1 GB kept, old files
 * gzipped. Level INFO unless {@code HERALD_LOG_LEVEL} says otherwise. Before this runs, the
 * {@link ConsoleLogConfigurator} keeps the console to warnings.
 */
public final class Logging {
    public static final String LEVEL_ENV = "HERALD_LOG_LEVEL";

    private Logging() {
    }

    /** Level from {@value #LEVEL_ENV}; a value that is not a level is a configuration error. */
    public static Level level(Map<String, String> env) {
        String raw = env.get(LEVEL_ENV);
        if (raw == null || raw.isBlank()) {
            return Level.INFO;
        }
        Level level = Level.toLevel(raw.strip().toUpperCase(Locale.ROOT), null);
        if (level == null) {
            throw new ConfigException("config - environment variable " + LEVEL_ENV
                    + " must be one of trace, debug, info, warn, error, was \"" + raw + "\"");
        }
        return level;
    }

    /** Sends every log line, in {@code format}, to the console and to {@code <logs>/herald.log} from now on (logs exists). */
    public static Path start(Path logs, Level level, LogFormat format) {
        Path file = logs.resolve("herald.log");
        dev.herald.app.runtime.PrivateFiles.touch(file); // logback appends to it; created here, it is private from the start
        LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
        ctx.reset();

        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(ctx);
        console.setName("console");
        console.setEncoder(encoder(ctx, format));
        console.start();

        RollingFileAppender<ILoggingEvent> rolling = new RollingFileAppender<>();
        rolling.setContext(ctx);
        rolling.setName("file");
        rolling.setFile(file.toString());
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
        policy.setContext(ctx);
        policy.setParent(rolling);
        policy.setFileNamePattern(logs.resolve("herald.%d{yyyy-MM-dd}.%i.log.gz").toString());
        policy.setMaxFileSize(FileSize.valueOf("10MB"));
        policy.setMaxHistory(14);
        policy.setTotalSizeCap(FileSize.valueOf("1GB"));
        policy.start();
        rolling.setRollingPolicy(policy);
        rolling.setEncoder(encoder(ctx, format));
        rolling.start();
        if (!rolling.isStarted()) {
            throw new IllegalStateException("logs - cannot write " + file + "; check that " + logs + " is writable");
        }

        Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(level);
        root.addAppender(console);
        root.addAppender(rolling);
        ctx.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
        // libraries' own start-up chatter (the MCP SDK's per-message lines, Javalin's banner): Herald logs what matters
        ctx.getLogger("io.modelcontextprotocol").setLevel(Level.WARN);
        ctx.getLogger("io.javalin").setLevel(Level.WARN);
        return file;
    }

    private static LayoutWrappingEncoder<ILoggingEvent> encoder(LoggerContext ctx, LogFormat format) {
        ch.qos.logback.core.LayoutBase<ILoggingEvent> layout = format == LogFormat.JSON
                ? new JsonLogLayout() : new LogLayout();
        layout.setContext(ctx);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(ctx);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }
}
